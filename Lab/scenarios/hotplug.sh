#!/usr/bin/env bash
# Plug and import: systemd-udevd applies udev/60-glucobridge.rules to a Dexcom receiver plugged
# in (a gadget bound to dummy_udc.0); `glucobridge daemon` imports it once when it arrives and
# adds nothing when it is plugged in again; the command glucobridge-import@.service runs for the
# instance udev names imports it; the device node's access lets an unprivileged user in the
# plugdev group import it without root. Then, the daemon still running, each meter family is
# plugged in and imported once: an Accu-Chek Guide (PHDC, through libusb) and a OneTouch Verio
# Reflect (a USB disk, whose SCSI node the kernel makes after the device appears).
source "$(dirname "$0")/../lib.sh"
out="$2"
# The receiver's device node, /dev/bus/usb/BUS/DEV.
reader_node() {
    local dir
    for dir in /sys/bus/usb/devices/1-*; do
        if [ "$(cat "$dir/idVendor" 2>/dev/null)" = 22a3 ]; then
            printf '/dev/bus/usb/%03d/%03d\n' "$(cat "$dir/busnum")" "$(cat "$dir/devnum")"
        fi
    done
}

# Whether the daemon has logged at least N imports of a plugged-in reader.
imports_logged() { [ "$(grep -c 'reader imported' "$out/daemon.log")" -ge "$1" ]; }

# Whether the daemon has ended at least N imports, imported or failed.
imports_ended() { [ "$(grep -Ec 'reader imported|reader import failed' "$out/daemon.log")" -ge "$1" ]; }

# The lab meter MODEL (vendor:product ID) as a gadget of its own, plugged in while the daemon
# runs, until the daemon has ended its Nth import; then unplugged.
meter_plugged_in() {
    local model="$1" id="$2" n="$3" pid
    local folder="/sys/kernel/config/usb_gadget/$model"
    "$lab_device" usb "$model" --name "$model" --unplugged > "$out/device-$model.log" 2>&1 &
    pid=$!
    # Ready once it says it serves: a FunctionFS gadget bound before its descriptors are written
    # is refused (EBUSY).
    await 20 "the $model gadget to be made" grep -q "serving" "$out/device-$model.log"
    await 10 "the $model gadget to bind to dummy_udc.0" bind_gadget "$folder"
    await 90 "the daemon to import the $model plugged in" imports_ended "$n"
    echo "" > "$folder/UDC"
    await 30 "the $model to leave" usb_device_absent "$id"
    kill "$pid"
}

case "$1" in
run)
    cp "$lab_root/udev/60-glucobridge.rules" /etc/udev/rules.d/
    cp "$lab_root/systemd/glucobridge-import@.service" /etc/systemd/system/
    /lib/systemd/systemd-udevd --daemon
    "$lab_device" usb dexcom --days 14 --unplugged > "$out/device.log" 2>&1 &
    device_pid=$!
    await 20 "the gadget to be made" grep -q "serving" "$out/device.log"
    mkdir -p "$out/spool"
    "$glucobridge" daemon --spool "$out/spool" --store "$work/daemon.sqlite" --tz UTC > "$out/daemon.log" 2>&1 &
    daemon_pid=$!
    await 60 "the daemon to start" grep -q "daemon started" "$out/daemon.log"
    plug
    await 120 "the daemon to import the reader plugged in" imports_logged 1
    udevadm settle
    node="$(reader_node)"
    [ -n "$node" ] || fail "the receiver has no device node"
    udevadm info --query=property --name="$node" > "$out/udev.properties"
    stat -c '%a %G' "$node" > "$out/node.access"
    unplug
    await 30 "the receiver to leave" usb_device_absent 22a3:0047
    plug
    await 120 "the daemon to import the reader plugged in again" imports_logged 2
    # What systemd would start for the reader now plugged in: the instance udev names, run as
    # glucobridge-import@.service's ExecStart runs it (%I: the instance with "-" read as "/").
    instance="$(udevadm info --query=property --name="$(reader_node)" | sed -n 's/^SYSTEMD_WANTS=.*glucobridge-import@\([0-9-]*\)\.service.*/\1/p')"
    [ -n "$instance" ] || fail "udev names no glucobridge-import@ instance for the reader plugged in again"
    exec_start="$(sed -n 's/^ExecStart=//p' "$lab_root/systemd/glucobridge-import@.service")"
    command="${exec_start//%I/${instance//-//}}"
    command="${command/\/usr\/local\/bin\/glucobridge/$glucobridge}"
    command="${command/\/var\/lib\/glucobridge\/store.sqlite/$work/unit.sqlite}"
    echo "$command" > "$out/unit.command"
    $command > "$out/unit.log" 2>&1 || fail "the unit's command ($command) failed: $(tail -n 1 "$out/unit.log")"
    # Without root: nobody, in the plugdev group the rules give the node to.
    mkdir -p /tmp/nobody && chown nobody /tmp/nobody
    setpriv --reuid=nobody --regid=nogroup --groups=plugdev env HOME=/tmp/nobody \
        "$glucobridge" import --store /tmp/nobody/store.sqlite --tz UTC > "$out/unprivileged.log" 2>&1 \
        || fail "the import as nobody (group plugdev) failed: $(tail -n 1 "$out/unprivileged.log")"
    unplug
    await 30 "the receiver to leave" usb_device_absent 22a3:0047
    kill "$device_pid"
    meter_plugged_in accuchek 173a:21d5 3
    meter_plugged_in verio 2766:000c 4
    kill -TERM "$daemon_pid"
    wait "$daemon_pid" || true
    ;;
check)
    cat "$out/daemon.log" "$out/udev.properties" "$out/node.access" "$out/unprivileged.log"
    imports="$(grep 'reader imported' "$out/daemon.log")"
    first="$(sed -n 1p <<< "$imports")"
    second="$(sed -n 2p <<< "$imports")"
    grep -q "added=4004" <<< "$first" || fail "the daemon's first import of the plugged-in reader did not add its 4004 readings: $first"
    grep -q "added=0" <<< "$second" || fail "plugging the reader in again added readings: $second"
    [ "$(count "$out/daemon.sqlite" glucose)" = 4020 ] || fail "the daemon's store holds $(count "$out/daemon.sqlite" glucose) readings, not 4004 and the meters' 8 each"
    for meter in accuchek:173a:21d5 verio:2766:000c; do
        family="${meter%%:*}"
        id="${meter#*:}"
        line="$(grep "device=$id" "$out/daemon.log" | grep -E 'reader imported|reader import failed' || true)"
        grep -q "reader imported" <<< "$line" || fail "the daemon did not import the $family meter $id plugged in: ${line:-no import logged}"
        grep -q "added=8" <<< "$line" || fail "the daemon's import of the $family meter did not add its 8 readings: $line"
        stored="$(sqlite3 "$out/daemon.sqlite" "SELECT count(*) FROM glucose g JOIN source s ON s.id = g.source_id WHERE s.family = '$family'")"
        [ "$stored" = 8 ] || fail "the daemon's store holds $stored readings of the $family meter, not 8"
    done
    grep -q '^ID_MM_DEVICE_IGNORE=1$' "$out/udev.properties" || fail "udev did not set ID_MM_DEVICE_IGNORE=1 on the receiver"
    grep -q '^GLUCOBRIDGE_DRIVER=dexcom$' "$out/udev.properties" || fail "udev did not set GLUCOBRIDGE_DRIVER=dexcom on the receiver"
    grep -Eq '^SYSTEMD_WANTS=.*glucobridge-import@0*1-[0-9]+\.service' "$out/udev.properties" || fail "udev did not ask systemd for glucobridge-import@BUS-DEV.service"
    [ "$(cat "$out/node.access")" = "660 plugdev" ] || fail "the receiver's device node is $(cat "$out/node.access"), not 660 plugdev"
    grep -q "4004 new, 0 already stored" "$out/unit.log" || fail "the import unit's command ($(cat "$out/unit.command")) did not store the readings: $(tail -n 1 "$out/unit.log")"
    grep -q "4004 new, 0 already stored" "$out/unprivileged.log" || fail "the import without root did not store the readings: $(tail -n 1 "$out/unprivileged.log")"
    ;;
esac
