#!/usr/bin/env bash
# A USB disk with the OneTouch Verio Reflect's ids (2766:000c) whose INQUIRY names another vendor:
# the import is refused, naming the disk, and nothing is written to it: the disk's first 64
# blocks, read with O_DIRECT from its block node before and after the import, are the same.
source "$(dirname "$0")/../lib.sh"
block_node() { ls /sys/block | grep -m1 '^sd' ; }
case "$1" in
run)
    out="$2"
    "$lab_device" usb verio --vendor Kingston > "$out/device.log" 2>&1 &
    await 30 "the disk 2766:000c to enumerate" usb_device_present 2766:000c
    await 30 "the kernel's block device for the disk" block_node
    disk="/dev/$(block_node)"
    await 10 "$disk to appear" test -b "$disk"
    dd if="$disk" iflag=direct bs=512 count=64 2>/dev/null | sha256sum > "$out/before.sha256"
    if "$glucobridge" import --store "$work/live.sqlite" --tz UTC > "$out/import.log" 2>&1; then
        fail "the import of a disk that is not a LifeScan meter succeeded"
    fi
    dd if="$disk" iflag=direct bs=512 count=64 2>/dev/null | sha256sum > "$out/after.sha256"
    if [ -f "$work/live.sqlite" ]; then count "$work/live.sqlite" glucose > "$out/stored.count"; else echo 0 > "$out/stored.count"; fi
    ;;
check)
    out="$2"
    cat "$out/import.log"
    grep -q "2766:000c" "$out/import.log" || fail "the refusal does not name the disk: $(tail -n 1 "$out/import.log")"
    grep -q 'not a LifeScan meter: SCSI INQUIRY names the vendor "Kingston"' "$out/import.log" \
        || fail "the refusal does not say why: $(tail -n 1 "$out/import.log")"
    grep -q "nothing was written to it" "$out/import.log" || fail "the refusal does not say nothing was written"
    cmp -s "$out/before.sha256" "$out/after.sha256" || fail "the disk's first 64 blocks changed during the import"
    [ "$(cat "$out/stored.count")" = 0 ] || fail "the refused import stored $(cat "$out/stored.count") readings"
    echo "disk image before and after: $(cut -c1-16 "$out/before.sha256")"
    ;;
esac
