#!/usr/bin/env bash
# Bluetooth fixture captures served as the devices they recorded (the device side of their first
# connection, from the central's view) on btvirt's hci1 and imported live: the synthetic band and
# CGM (Heart Rate, and CGM with its Record Access Control Point), as btmon and as Android's HCI
# snoop log recorded it. Each live import stores the same glucose rows (device-timed: equal to the instant) and
# reads the same number of heart-rate samples as a replay of the capture. Then the CGM drops the
# link in the middle of its RACP transfer (before its response code): the import reports it,
# naming the device, keeps only whole records, and the next session completes the store.
source "$(dirname "$0")/../lib.sh"
out="$2"
captures=(synthetic/synthetic-hrs-cgms-btmon-monitor.btsnoop synthetic/synthetic-hrs-cgms-android-h4.btsnoop)

case "$1" in
run)
    start_bluetooth "$out/btmon-both.btsnoop" "$out/btmon-hci0.btsnoop"
    number=0
    for capture in "${captures[@]}"; do
        number=$((number + 1))
        serve_peripheral "$out/device-$number.log" 180d capture --file "$lab_root/fixtures/ble/$capture"
        "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/live-$number.sqlite" --tz UTC \
            > "$out/import-$number.log" 2>&1 || fail "live import of the device in $capture failed: $(tail -n 1 "$out/import-$number.log")"
        wait "$device_pid" || true
    done
    echo "$peripheral_address" > "$out/peripheral.address"
    serve_peripheral "$out/device-drop.log" 180d capture --file "$lab_root/fixtures/ble/${captures[0]}" --drop-after 31
    "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/dropped.sqlite" --tz UTC \
        > "$out/dropped.log" 2>&1 || true
    wait "$device_pid" || true
    glucose_rows "$work/dropped.sqlite" > "$out/dropped.rows" 2>/dev/null || : > "$out/dropped.rows"
    serve_peripheral "$out/device-after-drop.log" 180d capture --file "$lab_root/fixtures/ble/${captures[0]}"
    "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/dropped.sqlite" --tz UTC \
        > "$out/after-drop.log" 2>&1 || fail "the import after the dropped link failed: $(tail -n 1 "$out/after-drop.log")"
    wait "$device_pid" || true
    stop_bluetooth
    ;;
check)
    number=0
    for capture in "${captures[@]}"; do
        number=$((number + 1))
        cat "$out/import-$number.log"
        same_as_replay glucose_rows "$lab_root/fixtures/ble/$capture" "$out/live-$number.sqlite" "$out/replay-$number.sqlite" UTC \
            "glucose of $capture served live and replayed"
        live_samples="$(grep -o '[0-9]* samples' "$out/import-$number.log" | head -n 1)"
        replay_samples="$(grep -o '[0-9]* samples' "$out/replay-$number.sqlite.log" | head -n 1)"
        [ "$live_samples" = "$replay_samples" ] || fail "$capture served live gave ${live_samples:-no samples}, its replay ${replay_samples:-no samples}"
    done
    [ "$(wc -l < "$out/live-1.sqlite.rows")" = 6 ] || fail "the synthetic CGM served live stored $(wc -l < "$out/live-1.sqlite.rows") readings, not 6"
    # The link dropped before the RACP's response code: the import says so, naming the device;
    # what it keeps are whole records (each with its E2E-CRC checked), the same as the full
    # session's; the next session adds the rest, nothing twice.
    cat "$out/dropped.log" "$out/after-drop.log"
    address="$(cat "$out/peripheral.address")"
    grep -i "problem:.*ended before the device's response code.*$address" "$out/dropped.log" \
        || fail "the import whose link dropped during the RACP transfer did not report it, naming $address: $(grep -i problem "$out/dropped.log")"
    while read -r row; do
        grep -qxF "$row" "$out/live-1.sqlite.rows" || fail "the cut import stored a reading the device does not hold: $row"
    done < "$out/dropped.rows"
    glucose_rows "$out/dropped.sqlite" > "$out/after-drop.rows"
    same_rows "glucose after the cut import and the next one, and of the whole session" "$out/after-drop.rows" "$out/live-1.sqlite.rows"
    ;;
esac
