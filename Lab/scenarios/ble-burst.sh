#!/usr/bin/env bash
# A heart-rate band that notifies as fast as the link allows for 20 s once the central listens
# (far faster than a band does: a Huami activity fetch, a full CGM memory's RACP transfer or a
# fitness machine at 4 Hz come in bursts). Every Handle Value Notification that tshark counts on
# the central's controller (btmon -i hci0) is a sample of the import, and every sample is stored
# (activity_minute.sample_count); replays of the import's --record btsnoop read the same.
# The burst lasts 20 s, then the import stores over ten thousand samples on an emulated CPU
# (13,569 in one run, 678 a second).
# lab-timeout: 600
source "$(dirname "$0")/../lib.sh"
out="$2"
case "$1" in
run)
    # btmon's monitor socket holds the whole burst (start_bluetooth), so the count is of what
    # hci0 received.
    start_bluetooth - "$out/btmon-hci0.btsnoop"
    advertise 180d
    "$lab_device" ble heart-rate --index 1 --burst 20 > "$out/device.log" 2>&1 &
    await 20 "the band to listen on hci1" grep -q "listening" "$out/device.log"
    "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/live.sqlite" --tz UTC \
        --record "$out/record.btsnoop" > "$out/import.log" 2>&1 || fail "live import failed: $(tail -n 1 "$out/import.log")"
    stop_bluetooth
    ;;
check)
    cat "$out/import.log"
    # What reached the central's controller (btmon -i hci0), what the import read and what it stored.
    tshark -r "$out/btmon-hci0.btsnoop" -Y "btatt.opcode == 0x1b" -T fields -e frame.time_epoch 2>/dev/null > "$out/delivered.times"
    delivered="$(wc -l < "$out/delivered.times")"
    samples="$(grep -o '[0-9]* samples' "$out/import.log" | head -n 1 | cut -d' ' -f1)"
    stored="$(sqlite3 "$out/live.sqlite" "SELECT coalesce(sum(sample_count), 0) FROM activity_minute")"
    span="$(awk 'NR == 1 {first = $1} {last = $1} END {printf "%.1f", last - first}' "$out/delivered.times")"
    awk -v d="$delivered" -v s="$stored" -v t="$span" 'BEGIN {
        printf "burst figure: %d notifications delivered to the central'"'"'s controller in %.1f s (%.0f/s), %d stored (%.0f/s handled, %.4f of delivered), in the lab VM\n",
            d, t, d / t, s, s / t, s / d }' | tee "$out/burst-figure"
    [ "$delivered" -gt 3000 ] || fail "only $delivered notifications reached the central's controller: no burst"
    [ "$samples" = "$delivered" ] || fail "the import read ${samples:-no} samples of the $delivered notifications tshark counts on hci0"
    [ "$stored" = "$delivered" ] || fail "the store holds $stored samples of the $delivered notifications tshark counts on hci0"
    replay_into "$out/record.btsnoop" "$out/replay-record.sqlite" UTC
    replayed="$(sqlite3 "$out/replay-record.sqlite" "SELECT coalesce(sum(sample_count), 0) FROM activity_minute")"
    [ "$replayed" = "$stored" ] || fail "a replay of the import's --record btsnoop stores $replayed samples, the live import $stored"
    ;;
esac
