#!/usr/bin/env bash
# Every USB fixture capture served as the device it recorded (its descriptors and recorded
# answers), one gadget after another, and imported live: each live import stores the same
# records, values, tags and device clock values as a replay of the capture itself (instants
# follow the lab's clock, not the capture's).
source "$(dirname "$0")/../lib.sh"
out="$2"
captures=(dexcom/ecc1-g4-receiver.pcap freestyle/libre-synthetic.pcap lab/dexcom-g4-tcpdump-usbmon1.pcap)
case "$1" in
run)
    number=0
    for capture in "${captures[@]}"; do
        number=$((number + 1))
        name="capture$number"
        "$lab_device" usb capture --file "$lab_root/fixtures/$capture" --name "$name" > "$out/device-$number.log" 2>&1 &
        device_pid=$!
        await 30 "the device of $capture to be plugged in" grep -q "serving" "$out/device-$number.log"
        await 30 "the device of $capture to enumerate" test -e /sys/bus/usb/devices/1-1/idVendor
        "$glucobridge" import --store "$work/live-$number.sqlite" --tz UTC > "$out/import-$number.log" 2>&1 \
            || fail "live import of the device recorded in $capture failed: $(tail -n 1 "$out/import-$number.log")"
        echo "" > "/sys/kernel/config/usb_gadget/$name/UDC"
        await 10 "the device of $capture to leave" test ! -e /sys/bus/usb/devices/1-1/idVendor
        kill "$device_pid" 2>/dev/null || true
    done
    ;;
check)
    number=0
    for capture in "${captures[@]}"; do
        number=$((number + 1))
        cat "$out/import-$number.log"
        same_as_replay glucose_values "$lab_root/fixtures/$capture" "$out/live-$number.sqlite" "$out/replay-$number.sqlite" UTC \
            "readings of $capture served live and replayed"
    done
    ;;
esac
