#!/usr/bin/env bash
# The simulated heart-rate band (900 measurements) as a real LE peripheral on btvirt's hci1, imported
# an L2CAP ATT socket on hci0. On the host: the live store equals replays of the import's own
# --record btsnoop, of `btmon -i hci0`, and of a `btmon -w` capture holding both ends of the link;
# tshark decodes the recording's ATT.
source "$(dirname "$0")/../lib.sh"
out="$2"
zone=America/Los_Angeles
case "$1" in
run)
    start_bluetooth "$out/btmon-both.btsnoop" "$out/btmon-hci0.btsnoop"
    advertise 180d
    "$lab_device" ble heart-rate --index 1 --seconds 900 > "$out/device.log" 2>&1 &
    await 20 "the band to listen on hci1" grep -q "listening" "$out/device.log"
    "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/live.sqlite" --tz "$zone" \
        --record "$out/record.btsnoop" > "$out/import.log" 2>&1 || fail "live import failed: $(tail -n 1 "$out/import.log")"
    stop_bluetooth
    ;;
check)
    cat "$out/import.log"
    samples="$(grep -o '[0-9]* samples' "$out/import.log" | head -n 1)"
    [ "$samples" = "900 samples" ] || fail "the live import read ${samples:-no samples}, not the band's 900 measurements"
    activity_rows "$out/live.sqlite" > "$out/live.rows"
    [ -s "$out/live.rows" ] || fail "the live import stored no activity minute"
    # The recording carries the instants the live import saw: the same rows exactly. btmon stamps
    # each packet where it crosses the HCI interface, a little before the socket delivers it, so
    # its replays must read the same measurements (minutes may split a moment apart).
    replay_into "$out/record.btsnoop" "$out/replay-record.sqlite" "$zone"
    activity_rows "$out/replay-record.sqlite" > "$out/replay-record.rows"
    same_rows "activity of the live import and of a replay of its --record btsnoop" "$out/live.rows" "$out/replay-record.rows"
    for capture in btmon-hci0 btmon-both; do
        replay_into "$out/$capture.btsnoop" "$out/replay-$capture.sqlite" "$zone"
        replayed="$(grep -o '[0-9]* samples' "$out/replay-$capture.sqlite.log" | head -n 1)"
        [ "$replayed" = "$samples" ] || fail "the replay of $capture.btsnoop read ${replayed:-no samples}, the live import $samples: $(tail -n 1 "$out/replay-$capture.sqlite.log")"
        [ "$(count "$out/replay-$capture.sqlite" activity_minute)" -ge 1 ] || fail "the replay of $capture.btsnoop stored no activity minute"
    done
    opcodes="$(tshark -r "$out/record.btsnoop" -Y btatt -T fields -e btatt.opcode 2>/dev/null | sort | uniq -c | tr -s ' \n' ' ')"
    echo "ATT opcodes in the recording: $opcodes"
    case "$opcodes" in
        *"900 0x1b"*) ;;
        *) fail "tshark does not find the 900 Handle Value Notifications in the recording: $opcodes" ;;
    esac
    ;;
esac
