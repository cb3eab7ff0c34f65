#!/usr/bin/env bash
# A OneTouch Verio Reflect (2766:000c) as a FunctionFS gadget speaking USB Mass Storage Bulk-Only
# Transport itself: the VM's usb-storage and sd drivers make its block device, and glucobridge
# writes its commands to the register blocks through the sg node with SG_IO. Nine records (the
# consensus edges, a HI, a LO, a control-solution test): live equals replay of its --record
# capture and of tcpdump's usbmon1 capture; a second import adds nothing; tshark decodes the
# captures as USB Mass Storage SCSI commands (WRITE(10) and READ(10)); doctor names the sg node.
source "$(dirname "$0")/../lib.sh"
case "$1" in
run)
    usb_live_run "$2" 2766:000c UTC verio
    "$glucobridge" doctor > "$2/doctor.log" 2>&1 || true
    ;;
check)
    usb_live_check "$2" UTC 8 0x02
    rows="$(sqlite3 "$2/live.sqlite" "SELECT group_concat(mgdl || ':' || tag, ' ') FROM (SELECT mgdl, tag FROM glucose ORDER BY time)")"
    [ "$rows" = "53.0:hypo-l2 54.0:hypo-l1 69.0:hypo-l1 70.0:in-range 181.0:hyper-l1 251.0:hyper-l2 600.0:hyper-l2 20.0:hypo-l2" ] \
        || fail "the meter's readings are $rows"
    grep -q "usb-storage holds the meter; glucobridge leaves it bound and sends its commands to /dev/sg" "$2/doctor.log" \
        || fail "doctor does not say where the meter's commands go: $(grep 2766:000c "$2/doctor.log" | head -n 3)"
    grep -q "control-solution" "$2/import.log" || fail "the import report does not count the control-solution result"
    for capture in record usbmon; do
        opcodes="$(tshark -r "$2/$capture.pcap" -Y scsi -T fields -e scsi_sbc.opcode 2>/dev/null | sort -u | tr '\n' ' ')"
        echo "$capture.pcap SCSI block opcodes (tshark): $opcodes"
        case "$opcodes" in *0x2a*) ;; *) fail "tshark decodes no SCSI WRITE(10) in $capture.pcap (it reads: ${opcodes:-none})" ;; esac
        case "$opcodes" in *0x28*) ;; *) fail "tshark decodes no SCSI READ(10) in $capture.pcap (it reads: ${opcodes:-none})" ;; esac
    done
    ;;
esac
