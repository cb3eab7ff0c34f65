#!/usr/bin/env bash
# Plug and import: systemd-udevd applies udev/60-glucobridge.rules to a Dexcom receiver plugged
# in (a gadget bound to dummy_udc.0); `glucobridge daemon` imports it once when it arrives and
# adds nothing when it is plugged in again; the device node's access lets an unprivileged user in
# the plugdev group import it without root.
source "$(dirname "$0")/../lib.sh"
out="$2"
case "$1" in
run)
    cp "$lab_root/udev/60-glucobridge.rules" /etc/udev/rules.d/
    cp "$lab_root/systemd/glucobridge-import@.service" /etc/systemd/system/
    /lib/systemd/systemd-udevd --daemon
    "$lab_device" usb dexcom --days 14 --unplugged > "$out/device.log" 2>&1 &
    await 20 "the gadget to be made" test -e "$gadget/UDC"
    mkdir -p "$out/spool"
    "$glucobridge" daemon --spool "$out/spool" --store "$work/daemon.sqlite" --tz UTC > "$out/daemon.log" 2>&1 &
    daemon_pid=$!
    await 60 "the daemon to start" grep -q "daemon started" "$out/daemon.log"
    plug
    await 120 "the daemon to import the reader plugged in" grep -q "reader imported" "$out/daemon.log"
    udevadm settle
    node=""
    for dir in /sys/bus/usb/devices/1-*; do
        [ "$(cat "$dir/idVendor" 2>/dev/null)" = 22a3 ] && node="/dev/bus/usb/$(printf %03d "$(cat "$dir/busnum")")/$(printf %03d "$(cat "$dir/devnum")")"
    done
    [ -n "$node" ] || fail "the receiver has no device node"
    udevadm info --query=property --name="$node" > "$out/udev.properties"
    stat -c '%a %G' "$node" > "$out/node.access"
    unplug
    await 30 "the receiver to leave" usb_device_absent 22a3:0047
    plug
    await 120 "the daemon to import the reader plugged in again" test "$(grep -c 'reader imported' "$out/daemon.log")" -ge 2
    kill -TERM "$daemon_pid"
    wait "$daemon_pid" || true
    # Without root: nobody, in the plugdev group the rules give the node to.
    mkdir -p /tmp/nobody && chown nobody /tmp/nobody
    setpriv --reuid=nobody --regid=nogroup --groups=plugdev env HOME=/tmp/nobody \
        "$glucobridge" import --store /tmp/nobody/store.sqlite --tz UTC > "$out/unprivileged.log" 2>&1 \
        || fail "the import as nobody (group plugdev) failed: $(tail -n 1 "$out/unprivileged.log")"
    ;;
check)
    cat "$out/daemon.log" "$out/udev.properties" "$out/node.access" "$out/unprivileged.log"
    imports="$(grep 'reader imported' "$out/daemon.log")"
    first="$(sed -n 1p <<< "$imports")"
    second="$(sed -n 2p <<< "$imports")"
    grep -q "added=4004" <<< "$first" || fail "the daemon's first import of the plugged-in reader did not add its 4004 readings: $first"
    grep -q "added=0" <<< "$second" || fail "plugging the reader in again added readings: $second"
    [ "$(count "$out/daemon.sqlite" glucose)" = 4004 ] || fail "the daemon's store holds $(count "$out/daemon.sqlite" glucose) readings, not 4004"
    grep -q '^ID_MM_DEVICE_IGNORE=1$' "$out/udev.properties" || fail "udev did not set ID_MM_DEVICE_IGNORE=1 on the receiver"
    grep -q '^GLUCOBRIDGE_DRIVER=dexcom$' "$out/udev.properties" || fail "udev did not set GLUCOBRIDGE_DRIVER=dexcom on the receiver"
    grep -Eq '^SYSTEMD_WANTS=.*glucobridge-import@1-[0-9]+\.service' "$out/udev.properties" || fail "udev did not ask systemd for glucobridge-import@BUS-DEV.service"
    [ "$(cat "$out/node.access")" = "660 plugdev" ] || fail "the receiver's device node is $(cat "$out/node.access"), not 660 plugdev"
    grep -q "4004 new, 0 already stored" "$out/unprivileged.log" || fail "the import without root did not store the readings: $(tail -n 1 "$out/unprivileged.log")"
    ;;
esac
