#!/usr/bin/env bash
# The simulated Bluetooth CGM (its stored readings read through the Record Access Control Point)
# with values at the consensus edges as an LE peripheral on btvirt's hci1, imported live: its
# readings are tagged on the value the device sent (69.6 is low), and the import's --record
# btsnoop, `btmon -i hci0` and a `btmon -w` capture holding both ends replay to the same rows.
source "$(dirname "$0")/../lib.sh"
out="$2"
case "$1" in
run)
    start_bluetooth "$out/btmon-both.btsnoop" "$out/btmon-hci0.btsnoop"
    advertise 181f
    "$lab_device" ble cgm --index 1 > "$out/device.log" 2>&1 &
    await 20 "the CGM to listen on hci1" grep -q "listening" "$out/device.log"
    "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/live.sqlite" --tz UTC \
        --record "$out/record.btsnoop" > "$out/import.log" 2>&1 || fail "live import failed: $(tail -n 1 "$out/import.log")"
    stop_bluetooth
    ;;
check)
    cat "$out/import.log"
    tags="$(sqlite3 "$out/live.sqlite" "SELECT group_concat(mgdl || ':' || tag, ' ') FROM (SELECT mgdl, tag FROM glucose ORDER BY time)")"
    [ "$tags" = "53.9:hypo-l2 54.0:hypo-l1 69.6:hypo-l1 69.9:hypo-l1 70.0:in-range 180.1:hyper-l1 180.4:hyper-l1 204.5:hyper-l1" ] \
        || fail "the CGM's readings are stored as $tags"
    for capture in record btmon-hci0 btmon-both; do
        same_as_replay glucose_rows "$out/$capture.btsnoop" "$out/live.sqlite" "$out/replay-$capture.sqlite" UTC \
            "readings of the live import and of a replay of $capture.btsnoop"
    done
    ;;
esac
