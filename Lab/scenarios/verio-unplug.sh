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
    grep -q "fault: .* after 3 READ RECORD commands" "$2/device.log" \
        || fail "the meter did not make the fault after its third READ RECORD command: $(grep fault "$2/device.log")"
    usb_fault_check "$2" "$said" 2766:000c 8
    ;;
esac
