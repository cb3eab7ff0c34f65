#!/usr/bin/env bash
# An Accu-Chek Guide (173a:21d5) unplugged in the middle of its segment transfer (after its answer
# to MDC_ACT_SEG_TRIG_XFER with the first segment-data event, and the second event): the import
# fails naming the meter and what happened, stores nothing; plugged in again, the next import
# stores all eight readings, and the one after it adds nothing. accuchek-silence.sh runs this with
# ACCUCHEK_FAULT=silence: the meter stops answering there instead.
source "$(dirname "$0")/../lib.sh"
fault="${ACCUCHEK_FAULT:-unplug}"
case "$fault" in
unplug) said="disconnected|unplugged" ;;
silence) said="timed out|stopped answering" ;;
esac
case "$1" in
run) usb_fault_run "$2" "$fault" 6 173a:21d5 accuchek ;;
check)
    out="$2"
    cat "$out/faulted.log"
    grep -q "173a:21d5" "$out/faulted.log" || fail "the failed import's message does not name the meter 173a:21d5: $(tail -n 1 "$out/faulted.log")"
    grep -Eq "$said" "$out/faulted.log" || fail "the failed import's message does not say what happened ($said): $(tail -n 1 "$out/faulted.log")"
    [ "$(cat "$out/faulted.count")" = 0 ] || fail "the failed import stored $(cat "$out/faulted.count") readings"
    grep -q "8 new, 0 already stored" "$out/import.log" || fail "the import after the fault was not complete: $(grep 'records read' "$out/import.log")"
    grep -q "records read: 0 new," "$out/import-again.log" || fail "the import after that was not empty: $(grep 'records read' "$out/import-again.log")"
    [ "$(count "$out/live.sqlite" glucose)" = 8 ] || fail "the store holds $(count "$out/live.sqlite" glucose) readings, not 8"
    ;;
esac
