#!/usr/bin/env bash
# A heart-rate band that drops the link before the central's discovery ends (after 3 PDUs): the
# import fails naming the device and the disconnection and stores nothing; the next session with
# the band is imported whole.
source "$(dirname "$0")/../lib.sh"
out="$2"
case "$1" in
run)
    start_bluetooth "$out/btmon-both.btsnoop" "$out/btmon-hci0.btsnoop"
    advertise 180d
    "$lab_device" ble heart-rate --index 1 --seconds 900 --drop-after 3 > "$out/device.log" 2>&1 &
    device_pid=$!
    await 20 "the band to listen on hci1" grep -q "listening" "$out/device.log"
    if "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/live.sqlite" --tz UTC \
        > "$out/faulted.log" 2>&1; then
        fail "the import from a band that dropped the link succeeded: $(tail -n 1 "$out/faulted.log")"
    fi
    wait "$device_pid" || true
    echo "$peripheral_address" > "$out/peripheral.address"
    if [ -f "$work/live.sqlite" ]; then count "$work/live.sqlite" activity_minute > "$out/faulted.count"; else echo 0 > "$out/faulted.count"; fi
    "$lab_device" ble heart-rate --index 1 --seconds 900 > "$out/device-again.log" 2>&1 &
    await 20 "the band to listen again" grep -q "listening" "$out/device-again.log"
    advertise 180d || true
    "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/live.sqlite" --tz UTC \
        > "$out/import.log" 2>&1 || fail "the import after the dropped link failed: $(tail -n 1 "$out/import.log")"
    stop_bluetooth
    ;;
check)
    cat "$out/faulted.log" "$out/import.log"
    address="$(cat "$out/peripheral.address")"
    grep -qi "$address" "$out/faulted.log" || fail "the failed import's message does not name the band $address: $(tail -n 1 "$out/faulted.log")"
    grep -Eqi "connection ended|disconnect" "$out/faulted.log" || fail "the failed import's message does not say the link was lost: $(tail -n 1 "$out/faulted.log")"
    [ "$(cat "$out/faulted.count")" = 0 ] || fail "the failed import stored $(cat "$out/faulted.count") activity minutes"
    grep -q "900 samples" "$out/import.log" || fail "the import after the dropped link did not read the band's 900 measurements: $(grep samples "$out/import.log")"
    ;;
esac
