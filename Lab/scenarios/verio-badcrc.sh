#!/usr/bin/env bash
# A OneTouch Verio Reflect whose reply to READ RECORD 0 carries a wrong CRC-16/CCITT-FALSE: the
# import fails naming the meter, the command, the block and both CRCs, and stores nothing.
source "$(dirname "$0")/../lib.sh"
case "$1" in
run)
    out="$2"
    "$lab_device" usb verio --malformed > "$out/device.log" 2>&1 &
    await 30 "the meter 2766:000c to enumerate" usb_device_present 2766:000c
    if "$glucobridge" import --store "$work/live.sqlite" --tz UTC > "$out/faulted.log" 2>&1; then
        fail "the import of a meter sending a wrong CRC succeeded: $(tail -n 1 "$out/faulted.log")"
    fi
    if [ -f "$work/live.sqlite" ]; then count "$work/live.sqlite" glucose > "$out/faulted.count"; else echo 0 > "$out/faulted.count"; fi
    ;;
check)
    out="$2"
    cat "$out/faulted.log"
    grep -q "2766:000c" "$out/faulted.log" || fail "the failed import's message does not name the meter: $(tail -n 1 "$out/faulted.log")"
    grep -Eq "reply to READ RECORD 0 from 2766:000c \(block 3\) fails its CRC-16/CCITT-FALSE: it carries 0x[0-9A-F]{4}, its bytes give 0x[0-9A-F]{4}" \
        "$out/faulted.log" || fail "the failed import's message does not name the reply and the CRCs: $(tail -n 1 "$out/faulted.log")"
    [ "$(cat "$out/faulted.count")" = 0 ] || fail "the failed import stored $(cat "$out/faulted.count") readings"
    ;;
esac
