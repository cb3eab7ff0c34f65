#!/usr/bin/env bash
# A Garmin watch that is a USB disk: a configfs mass_storage gadget (091e, a product id chosen
# for the lab: the import looks only at the vendor and the mass-storage interface) backed by a
# FAT image that mkfs.vfat and mtools make from the FIT fixtures (GARMIN/GarminDevice.xml, two
# activities in GARMIN/Activity, the monitoring file in GARMIN/Monitor). The VM's usb-storage, sd
# and vfat read it; it is mounted read-only as docs/operating.md says, and `glucobridge import`
# finds it through sysfs and mountinfo. Checks: the live import stores what a replay of the same
# files stores; the watch unplugged and plugged in again adds nothing; the image is
# byte-identical afterwards. With GARMIN_FAULT=unplug (garmin-disk-unplug.sh) the watch's disk
# goes away under its mounted volume once the folders and the first file are in the page cache
# (the gadget's medium ejected: the next read fails as after an unplug, while the watch is still
# found): the import stores that file whole and fails naming the next; unplugged and plugged in
# again, the next import stores the rest.
source "$(dirname "$0")/../lib.sh"
fault="${GARMIN_FAULT:-none}"
id=091e:2530
files=(Activity.fit garmin-edge-820-bike.fit MonitoringFile.fit)
folders=(Activity Activity Monitor)
volume=/run/garmin

make_image() {
    local image="$1" index
    dd if=/dev/zero of="$image" bs=1M count=4 status=none
    mkfs.vfat -n GARMIN "$image" > /dev/null
    mmd -i "$image" ::GARMIN ::GARMIN/Activity ::GARMIN/Monitor
    printf '<?xml version="1.0" encoding="UTF-8"?>\n<Device><Model><Description>lab watch</Description></Model></Device>\n' > "$work/GarminDevice.xml"
    mcopy -i "$image" "$work/GarminDevice.xml" ::GARMIN/GarminDevice.xml
    for index in "${!files[@]}"; do
        mcopy -i "$image" "$lab_root/fixtures/fit/${files[$index]}" "::GARMIN/${folders[$index]}/${files[$index]}"
    done
}

plug_watch() {
    plug
    await 30 "the watch $id to enumerate" usb_device_present "$id"
    await 30 "the watch's block device" disk_node
    mkdir -p "$volume"
    mount -t vfat -o ro,nosuid,nodev,noexec "$(disk_node)" "$volume"
}

# The watch's disk (/dev/sdX, the first whole disk whose sysfs path runs through a 091e device).
disk_node() {
    local block
    for block in /sys/class/block/sd?; do
        [ -e "$block" ] || continue
        case "$(readlink -f "$block")" in */usb*) echo "/dev/$(basename "$block")"; return 0 ;; esac
    done
    return 1
}

unplug_watch() {
    umount -l "$volume" 2>/dev/null || true
    unplug
    await 10 "the watch to leave" usb_device_absent "$id"
}

case "$1" in
run)
    out="$2"
    image="$work/garmin.img"
    make_image "$image"
    sha256sum < "$image" > "$out/image-before.sha256"
    mkdir -p "$gadget/strings/0x409" "$gadget/configs/c.1" "$gadget/functions/mass_storage.0"
    echo 0x091e > "$gadget/idVendor"
    echo 0x2530 > "$gadget/idProduct"
    echo Garmin > "$gadget/strings/0x409/manufacturer"
    echo "lab watch" > "$gadget/strings/0x409/product"
    echo 1 > "$gadget/functions/mass_storage.0/lun.0/removable"
    echo "$image" > "$gadget/functions/mass_storage.0/lun.0/file"
    ln -s "$gadget/functions/mass_storage.0" "$gadget/configs/c.1/"
    plug_watch
    grep " $volume " /proc/self/mountinfo > "$out/mountinfo"
    if [ "$fault" = unplug ]; then
        # The folders and the first file read, then the disk gone: the import reads the first
        # file from the page cache and the next one from a disk that no longer answers.
        ls -R "$volume" > /dev/null
        cat "$volume/GARMIN/Activity/${files[0]}" > /dev/null
        echo 1 > "$gadget/functions/mass_storage.0/lun.0/forced_eject"
        if "$glucobridge" import --store "$work/live.sqlite" --tz UTC > "$out/faulted.log" 2>&1; then
            fail "the import from an unplugged watch succeeded: $(tail -n 1 "$out/faulted.log")"
        fi
        sqlite3 "$work/live.sqlite" ".backup '$work/faulted.sqlite'"
        unplug_watch
        echo "$image" > "$gadget/functions/mass_storage.0/lun.0/file"
        plug_watch
    fi
    garmin_import_twice "$out"
    sha256sum < "$image" > "$out/image-after.sha256"
    ;;
check)
    out="$2"
    cat "$out/import.log"
    grep -q "ro,nosuid,nodev,noexec" "$out/mountinfo" || fail "the watch was not mounted read-only: $(cat "$out/mountinfo")"
    same_rows "the FAT image after the imports and before them" "$out/image-before.sha256" "$out/image-after.sha256"
    grep -q "^Garmin watch usb 091e:2530 on bus 1 address [0-9]*, volume /run/garmin: 3 FIT files" "$out/import.log" || fail "the import does not name the watch 091e:2530 and its volume: $(head -n 1 "$out/import.log")"
    garmin_live_check "$out" "${files[@]}"
    if [ "$fault" = unplug ]; then
        cat "$out/faulted.log"
        grep -q "091e:2530" "$out/faulted.log" || fail "the failed import does not name the watch: $(tail -n 1 "$out/faulted.log")"
        grep -q "${files[1]}" "$out/faulted.log" || fail "the failed import does not name the file it could not read: $(tail -n 1 "$out/faulted.log")"
        grep -q "1 of its 3 FIT files were stored whole" "$out/faulted.log" \
            || fail "the failed import did not store its first file whole: $(tail -n 1 "$out/faulted.log")"
        cp "$lab_root/fixtures/fit/${files[0]}" "$out/first.fit"
        replay_into "$out/first.fit" "$out/replay-first.sqlite" UTC
        for listing in exercise_rows activity_rows; do
            "$listing" "$out/faulted.sqlite" > "$out/faulted.$listing"
            "$listing" "$out/replay-first.sqlite" > "$out/replay-first.$listing"
            same_rows "$listing after the unplugged import and of a replay of its first file" "$out/faulted.$listing" "$out/replay-first.$listing"
        done
        grep -q "[1-9][0-9]* new" "$out/import.log" || fail "the import after plugging in again added nothing"
    fi
    ;;
esac
