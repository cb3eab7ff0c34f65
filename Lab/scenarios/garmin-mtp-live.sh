#!/usr/bin/env bash
# A Garmin watch that speaks MTP instead of being a USB disk: a configfs FunctionFS gadget (091e,
# a product id chosen for the lab) served by umtp-responder (Debian's MTP responder), sharing a
# read-only folder with GARMIN/Activity (two activities) and GARMIN/Monitor (the monitoring
# file), copied from the FIT fixtures. The VM's libmtp (through libusb and usbfs) finds it; the
# import copies the FIT files off it and stores them. Checks: the live import stores what a replay
# of the same files stores; the watch unplugged and plugged in again adds nothing; the daemon
# imports the watch plugged in while it runs, storing the same; the folder's files are unchanged
# (no file on the watch written or deleted).
source "$(dirname "$0")/../lib.sh"
id=091e:4b48
files=(Activity.fit garmin-edge-820-bike.fit MonitoringFile.fit)
folders=(Activity Activity Monitor)
shared="$work/watch"

plug_watch() {
    plug
    await 30 "the watch $id to enumerate" usb_device_present "$id"
}

unplug_watch() {
    unplug
    await 10 "the watch to leave" usb_device_absent "$id"
}

case "$1" in
run)
    out="$2"
    for index in "${!files[@]}"; do
        mkdir -p "$shared/GARMIN/${folders[$index]}"
        cp "$lab_root/fixtures/fit/${files[$index]}" "$shared/GARMIN/${folders[$index]}/"
    done
    (cd "$shared" && find . -type f | sort | xargs sha256sum) > "$out/files-before.sha256"
    serve_mtp_watch "$gadget" "$shared" "$out/umtprd.log"
    plug_watch
    garmin_import_twice "$out"
    # The daemon: the watch plugged in while it runs is imported on its own.
    /lib/systemd/systemd-udevd --daemon
    mkdir -p "$out/spool"
    "$glucobridge" daemon --spool "$out/spool" --store "$work/daemon.sqlite" --tz UTC > "$out/daemon.log" 2>&1 &
    daemon_pid=$!
    await 60 "the daemon to start" grep -q "daemon started" "$out/daemon.log"
    plug_watch
    await 120 "the daemon to import the watch plugged in" grep -q "reader imported" "$out/daemon.log"
    kill -TERM "$daemon_pid"
    wait "$daemon_pid" || true
    unplug_watch
    (cd "$shared" && find . -type f | sort | xargs sha256sum) > "$out/files-after.sha256"
    ;;
check)
    out="$2"
    cat "$out/import.log"
    same_rows "the watch's files after the imports and before them" "$out/files-before.sha256" "$out/files-after.sha256"
    grep -q "^Garmin watch usb 091e:4b48 on bus 1 address [0-9]* (MTP): 3 FIT files" "$out/import.log" \
        || fail "the import does not name the MTP watch 091e:4b48: $(head -n 1 "$out/import.log")"
    grep -q "mtp:GARMIN/Activity/Activity.fit" "$out/import.log" || fail "the import report does not name the watch's files by their path on it"
    garmin_live_check "$out" "${files[@]}"
    for listing in exercise_rows activity_rows; do
        "$listing" "$out/daemon.sqlite" > "$out/daemon.$listing"
        same_rows "$listing of the daemon's import and of the command's" "$out/daemon.$listing" "$out/live.$listing"
    done
    grep "reader imported" "$out/daemon.log" | grep -q "091e:4b48" || fail "the daemon's log does not name the watch: $(grep 'reader imported' "$out/daemon.log")"
    ;;
esac
