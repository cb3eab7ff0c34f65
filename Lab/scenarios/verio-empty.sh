#!/usr/bin/env bash
# A OneTouch Verio Reflect with an empty memory imported live through its sg node: the import
# succeeds, stores nothing and says the memory is empty; replays of its --record and usbmon
# captures say the same.
source "$(dirname "$0")/../lib.sh"
case "$1" in
run) usb_live_run "$2" 2766:000c UTC verio --results 0 ;;
check)
    out="$2"
    cat "$out/import.log"
    grep -q "0 new, 0 already stored" "$out/import.log" || fail "the live import of an empty meter: $(grep 'records read' "$out/import.log")"
    grep -q "memory is empty" "$out/import.log" || fail "the import report does not say the meter's memory is empty"
    [ "$(count "$out/live.sqlite" glucose)" = 0 ] || fail "the empty meter's import stored readings"
    for capture in record usbmon; do
        replay_into "$out/$capture.pcap" "$out/replay-$capture.sqlite" UTC
        grep -q "memory is empty" "$out/replay-$capture.sqlite.log" || fail "the replay of $capture.pcap does not say the memory is empty"
        [ "$(count "$out/replay-$capture.sqlite" glucose)" = 0 ] || fail "the replay of $capture.pcap stored readings"
    done
    ;;
esac
