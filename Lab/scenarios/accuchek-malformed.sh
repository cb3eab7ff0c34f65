#!/usr/bin/env bash
# An Accu-Chek Guide whose answer to GET is a malformed APDU (an attribute list longer than the
# APDU): the import fails naming the meter, the APDU and the byte, and stores nothing.
source "$(dirname "$0")/../lib.sh"
case "$1" in
run)
    out="$2"
    "$lab_device" usb accuchek --malformed > "$out/device.log" 2>&1 &
    await 30 "the meter 173a:21d5 to enumerate" usb_device_present 173a:21d5
    if "$glucobridge" import --store "$work/live.sqlite" --tz UTC > "$out/faulted.log" 2>&1; then
        fail "the import of a meter sending a malformed APDU succeeded: $(tail -n 1 "$out/faulted.log")"
    fi
    if [ -f "$work/live.sqlite" ]; then count "$work/live.sqlite" glucose > "$out/faulted.count"; else echo 0 > "$out/faulted.count"; fi
    ;;
check)
    out="$2"
    cat "$out/faulted.log"
    grep -q "173a:21d5" "$out/faulted.log" || fail "the failed import's message does not name the meter: $(tail -n 1 "$out/faulted.log")"
    grep -q "malformed presentation APDU (0xE700) from 173a:21d5 at byte 16" "$out/faulted.log" \
        || fail "the failed import's message does not name the APDU and the byte: $(tail -n 1 "$out/faulted.log")"
    [ "$(cat "$out/faulted.count")" = 0 ] || fail "the failed import stored $(cat "$out/faulted.count") readings"
    ;;
esac
