#!/usr/bin/env bash
# A OneTouch Verio Reflect (2766:000c) unplugged while its records are read: the gadget leaves
# the bus once the meter has taken its third READ RECORD command (the fault is keyed on the
# meter's own commands, not on a count of USB replies, which the VM's usb-storage and sd drivers
# add their own SCSI commands to). The import fails naming the meter and what happened, stores
# nothing; plugged in again, the next import stores all eight readings, and the one after it
# adds nothing. verio-silence.sh runs this with VERIO_FAULT=silence: the meter stops answering
# there instead. About 40 s.
source "$(dirname "$0")/../lib.sh"
fault="${VERIO_FAULT:-unplug}"
case "$fault" in
unplug) said="disconnected|unplugged|gone" ;;
silence) said="timed out|stopped answering" ;;
esac
case "$1" in
run) usb_fault_run "$2" "$fault" 3 2766:000c verio ;;
check)
    out="$2"
    cat "$out/faulted.log"
    grep -q "fault: .* after 3 READ RECORD commands" "$out/device.log" || fail "the meter did not make the fault after its third READ RECORD command: $(grep fault "$out/device.log")"
    grep -q "2766:000c" "$out/faulted.log" || fail "the failed import's message does not name the meter 2766:000c: $(tail -n 1 "$out/faulted.log")"
    grep -Eq "$said" "$out/faulted.log" || fail "the failed import's message does not say what happened ($said): $(tail -n 1 "$out/faulted.log")"
    [ "$(cat "$out/faulted.count")" = 0 ] || fail "the failed import stored $(cat "$out/faulted.count") readings"
    grep -q "8 new, 0 already stored" "$out/import.log" || fail "the import after the fault was not complete: $(grep 'records read' "$out/import.log")"
    grep -q "records read: 0 new," "$out/import-again.log" || fail "the import after that was not empty: $(grep 'records read' "$out/import-again.log")"
    [ "$(count "$out/live.sqlite" glucose)" = 8 ] || fail "the store holds $(count "$out/live.sqlite" glucose) readings, not 8"
    ;;
esac
