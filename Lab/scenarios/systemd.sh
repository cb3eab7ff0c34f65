#!/usr/bin/env bash
# lab: init=systemd
# systemd boots on an emulated CPU before the scenario starts.
# lab-timeout: 600
# The units under systemd as PID 1, hardened as shipped: `glucobridge install --system` in a VM
# booted with systemd; a Dexcom receiver plugged in makes udev want glucobridge-import@BUS-DEV,
# which systemd runs as the glucobridge account under its system call filter, storing every
# reading in /var/lib/glucobridge; unplugged and plugged in again, the next instance adds
# nothing. A Garmin watch that speaks MTP is imported by the same unit, through libmtp. The
# daemon's unit, started by the install, imports a capture dropped into its spool folder, then
# (a drop-in adding --ble) a Bluetooth CGM's 8 readings with no capability, and stops cleanly on
# `systemctl stop`. A unit killed by its filter (SIGSYS) or failing in any other way fails the
# scenario.
source "$(dirname "$0")/../lib.sh"
out="$2"
state=/var/lib/glucobridge
spooled=ecc1-g4-receiver.pcap

# The import unit udev wants for the reader of VENDOR now plugged in:
# glucobridge-import@BUS-DEV.service.
reader_unit() {
    local dir vendor="$1"
    for dir in /sys/bus/usb/devices/1-*; do
        if [ "$(cat "$dir/idVendor" 2>/dev/null)" = "$vendor" ]; then
            printf 'glucobridge-import@%03d-%03d.service\n' "$(cat "$dir/busnum")" "$(cat "$dir/devnum")"
        fi
    done
}

# Whether systemd has run UNIT's command to its end.
unit_ran() { [ "$(systemctl show -P ExecMainExitTimestampMonotonic "$1")" -gt 0 ]; }

# Waits for systemd to run the import unit udev wants for the reader of VENDOR:PRODUCT just
# plugged in, and keeps the unit's state and log as OUT/NAME.unit and OUT/NAME.log.
run_by_udev() {
    local name="$1" id="$2" unit
    await 30 "the reader $id to enumerate" usb_device_present "$id"
    unit="$(reader_unit "${id%%:*}")"
    [ -n "$unit" ] || fail "the reader $id has no device number"
    await 240 "systemd to run $unit" unit_ran "$unit"
    echo "$unit" > "$out/$name.name"
    systemctl show -p Result -p ExecMainCode -p ExecMainStatus "$unit" > "$out/$name.unit"
    journalctl -u "$unit" -o cat > "$out/$name.log"
    grep -qx 'Result=success' "$out/$name.unit" || fail "$unit did not succeed under systemd: $(tr '\n' ' ' < "$out/$name.unit")"
}

# Plugs the receiver in and waits for its import unit (run_by_udev).
import_by_udev() {
    plug
    run_by_udev "$1" 22a3:0047
}

case "$1" in
run)
    [ "$(cat /proc/1/comm)" = systemd ] || fail "PID 1 is $(cat /proc/1/comm), not systemd"
    "$glucobridge" install --system > "$out/install.log" 2>&1 || fail "glucobridge install --system failed: $(tail -n 1 "$out/install.log")"
    await 60 "the daemon's unit to start" systemctl is-active --quiet glucobridge.service
    "$lab_device" usb dexcom --days 14 --unplugged > "$out/device.log" 2>&1 &
    await 20 "the device model to serve its gadget" grep -q "serving" "$out/device.log"
    import_by_udev first
    stat -c '%U %G %a' "$state/store.sqlite" > "$out/store.owner"
    unplug
    await 30 "the receiver to leave" usb_device_absent 22a3:0047
    import_by_udev again
    cp "$lab_root/fixtures/dexcom/$spooled" "$state/spool/"
    await 120 "the daemon to import the capture in its spool" test -e "$state/spool/done/$spooled"
    # A Garmin watch that speaks MTP (umtp-responder on FunctionFS): udev wants the same unit,
    # which copies the watch's FIT file off through libmtp under the unit's filter and device policy.
    unplug
    await 30 "the receiver to leave" usb_device_absent 22a3:0047
    mkdir -p "$work/watch/GARMIN/Activity"
    cp "$lab_root/fixtures/fit/garmin-edge-820-bike.fit" "$work/watch/GARMIN/Activity/"
    watch=/sys/kernel/config/usb_gadget/watch
    serve_mtp_watch "$watch" "$work/watch" "$out/umtprd.log"
    await 10 "the watch's gadget to bind to dummy_udc.0" bind_gadget "$watch"
    run_by_udev watch 091e:4b48
    # A Bluetooth CGM added with a drop-in, as docs/operating.md says: the daemon, with no
    # capability, reads it over L2CAP.
    start_bluetooth "$out/btmon-both.btsnoop" "$out/btmon-hci0.btsnoop"
    serve_peripheral "$out/cgm.log" 181f cgm
    mkdir -p /etc/systemd/system/glucobridge.service.d
    exec_start="$(sed -n 's/^ExecStart=//p' /etc/systemd/system/glucobridge.service)"
    printf '%s\n' "[Service]" "ExecStart=" "ExecStart=$exec_start --ble $peripheral_address,public --adapter hci0" \
        > /etc/systemd/system/glucobridge.service.d/ble.conf
    systemctl daemon-reload
    systemctl restart glucobridge.service
    await 120 "the daemon to read the Bluetooth CGM" sh -c "journalctl -u glucobridge.service -o cat | grep -q 'source read'"
    systemctl stop glucobridge.service
    stop_bluetooth
    systemctl show -p Result -p ActiveState -p ExecMainCode -p ExecMainStatus glucobridge.service > "$out/daemon.unit"
    journalctl -u glucobridge.service -o cat > "$out/daemon.log"
    sqlite3 "$state/store.sqlite" "PRAGMA wal_checkpoint(TRUNCATE);" > /dev/null
    cp "$state/store.sqlite" "$out/units.sqlite"
    ;;
check)
    cat "$out/install.log" "$out/first.log" "$out/again.log" "$out/watch.log" "$out/daemon.log"
    # A unit its system call filter killed ends with Result=signal or core-dump, ExecMainCode 2 or 3.
    for name in first again watch; do
        grep -qx 'Result=success' "$out/$name.unit" || fail "$(cat "$out/$name.name") did not succeed under systemd: $(tr '\n' ' ' < "$out/$name.unit")"
    done
    [ "$(cat "$out/first.name")" != "$(cat "$out/again.name")" ] || fail "the reader plugged in again got the same unit instance"
    grep -q "4004 new, 0 already stored" "$out/first.log" || fail "the first import unit did not store the 4004 readings: $(tail -n 1 "$out/first.log")"
    grep -q "records read: 0 new," "$out/again.log" || fail "the reader plugged in again added readings: $(grep 'records read' "$out/again.log")"
    [ "$(cut -d' ' -f1,2 "$out/store.owner")" = "glucobridge glucobridge" ] || fail "the units' store is $(cat "$out/store.owner"), not the glucobridge account's"
    grep -q "^Garmin watch usb 091e:4b48 on bus 1 address [0-9]* (MTP): 1 FIT file" "$out/watch.log" \
        || fail "the import unit did not read the MTP watch: $(tail -n 1 "$out/watch.log")"
    ride="$(sqlite3 "$out/units.sqlite" "SELECT name || ' ' || distance_m FROM exercise WHERE device_record_key = 'session:0'")"
    [ "$ride" = "Cycling 457.12" ] || fail "the units' store holds the watch's ride as '$ride', not Cycling 457.12 m"
    grep -q 'daemon stopped' "$out/daemon.log" || fail "the daemon did not log that it stopped"
    grep 'source read' "$out/daemon.log" | grep -q 'readingsAdded=8 ' \
        || fail "the daemon's read of the Bluetooth CGM did not store its 8 readings: $(grep 'source read' "$out/daemon.log")"
    grep -qx 'Result=success' "$out/daemon.unit" || fail "the daemon's unit did not stop cleanly: $(tr '\n' ' ' < "$out/daemon.unit")"
    grep -qx 'ActiveState=inactive' "$out/daemon.unit" || fail "the daemon's unit is not inactive after systemctl stop: $(tr '\n' ' ' < "$out/daemon.unit")"
    replay_into "$lab_root/fixtures/dexcom/$spooled" "$out/spooled.sqlite" UTC
    expected=$((4004 + 8 + $(count "$out/spooled.sqlite" glucose)))
    [ "$(count "$out/units.sqlite" glucose)" = "$expected" ] \
        || fail "the units' store holds $(count "$out/units.sqlite" glucose) readings, not the receiver's 4004, the CGM's 8 and the spooled capture's $((expected - 4012))"
    ;;
esac
