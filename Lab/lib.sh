# Shared by the lab's scenarios (Lab/scenarios/*.sh), inside the VM ("run") and on the host
# ("check"). A scenario fails with one line: the last line it prints before a non-zero exit.
set -euo pipefail

lab_root="${LAB_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
lab_bin="${LAB_BIN:-$lab_root/.build/debug}"
glucobridge="$lab_bin/glucobridge"
lab_device="$lab_bin/glucobridge-lab-device"
gadget=/sys/kernel/config/usb_gadget/glucobridge

# Inside the VM, stores live in tmpfs (SQLite's WAL needs shared memory, which 9p does not give);
# when the scenario ends they are checkpointed and copied into the results folder.
work=/tmp/lab
save_stores() {
    local store
    for store in "$work"/*.sqlite; do
        [ -f "$store" ] || continue
        sqlite3 "$store" "PRAGMA wal_checkpoint(TRUNCATE);" > /dev/null 2>&1 || true
        cp "$store" "$LAB_OUT/"
    done
}
if [ "${1:-}" = run ]; then
    mkdir -p "$work"
    trap save_stores EXIT
fi

fail() {
    echo "FAIL: $*"
    exit 1
}

# Waits until CONDITION (a shell command) holds, checking every 0.1 s for at most SECONDS; fails
# naming WHAT otherwise. A wait for an event with a bound, not a sleep standing in for one.
await() {
    local seconds="$1" what="$2"
    shift 2
    local tries=$((seconds * 10))
    until "$@" >/dev/null 2>&1; do
        tries=$((tries - 1))
        [ "$tries" -gt 0 ] || fail "waited ${seconds}s for $what"
        sleep 0.1
    done
}

# The USB device enumerated on the host side of dummy_hcd with vendor:product VIDPID.
usb_device_present() {
    local vidpid="$1" dir
    for dir in /sys/bus/usb/devices/1-*; do
        [ -f "$dir/idVendor" ] || continue
        [ "$(cat "$dir/idVendor"):$(cat "$dir/idProduct")" = "$vidpid" ] && return 0
    done
    return 1
}

usb_device_absent() { ! usb_device_present "$1"; }

# Starts a usbmon capture of bus 1 into FILE, as a user would with tcpdump; stop_capture ends it.
start_usbmon_capture() {
    tcpdump -i usbmon1 -U -w "$1" >"$1.log" 2>&1 &
    capture_pid=$!
    await 10 "tcpdump to start capturing" grep -q "listening on" "$1.log"
}

stop_capture() {
    kill -INT "$capture_pid" 2>/dev/null || true
    wait "$capture_pid" 2>/dev/null || true
}

# Binds the gadget in FOLDER to the UDC: plugs it in.
bind_gadget() { echo dummy_udc.0 2> /dev/null > "$1/UDC"; }

# Plugs the gadget in (binds it to the UDC) or unplugs it. The kernel can refuse a bind (EBUSY,
# with "Need at least one configuration" in its log) just after a FunctionFS gadget was made
# (seen once in `hotplug` at load 10); the bind is then tried again.
plug() { await 10 "the gadget $gadget to bind to dummy_udc.0" bind_gadget "$gadget"; }
unplug() { echo "" > "$gadget/UDC"; }

# Every stored reading, one line each, in the columns a live import and a replay must agree on:
# key, value, unit, tag, trend, instant, the device's own clock values and the Day.
glucose_rows() {
    sqlite3 -separator ' | ' "$1" "SELECT g.device_record_key, g.mgdl, g.unit, g.tag, coalesce(g.trend, '-'),
        g.time, coalesce(g.device_time, '-'), coalesce(g.device_display_time, '-'), d.date
        FROM glucose g JOIN day d ON d.id = g.day_id ORDER BY g.device_record_key"
}

# The same without the instant and Day, for stores whose host clocks differ (a capture served
# live, with the time of the lab, against its replay, with the time of the capture).
glucose_values() {
    sqlite3 -separator ' | ' "$1" "SELECT device_record_key, mgdl, unit, tag, coalesce(trend, '-'),
        coalesce(device_time, '-'), coalesce(device_display_time, '-') FROM glucose ORDER BY device_record_key"
}

exercise_rows() {
    sqlite3 -separator ' | ' "$1" "SELECT e.device_record_key, e.time, e.name, e.duration_seconds, e.intensity, d.date
        FROM exercise e JOIN day d ON d.id = e.day_id ORDER BY e.device_record_key"
}

# Every activity minute: its source (a Bluetooth device's by the services it was read through,
# its family being the bus's), and each value the sensors gave it.
activity_rows() {
    sqlite3 -separator ' | ' "$1" "SELECT m.minute, coalesce((SELECT group_concat(service, ',') FROM (SELECT service FROM source_service
            WHERE source_id = s.id ORDER BY service)), s.family) AS label, coalesce(m.heart_rate_bpm, '-'), coalesce(m.step_cadence_spm, '-'),
        coalesce(m.crank_cadence_rpm, '-'), coalesce(m.speed_mps, '-'), coalesce(m.distance_m, '-'), coalesce(m.energy_kj, '-'),
        coalesce(m.gait, '-'), m.sensors, m.sample_count FROM activity_minute m JOIN source s ON s.id = m.source_id ORDER BY m.minute, label"
}

count() { sqlite3 "$1" "SELECT count(*) FROM $2"; }

# Fails unless the two row listings are the same, naming the first difference.
same_rows() {
    local what="$1" left="$2" right="$3"
    if ! diff -q "$left" "$right" >/dev/null; then
        local first
        first="$(diff "$left" "$right" | grep '^[<>]' | head -n 2 | tr '\n' ' ')"
        fail "$what differ: $first"
    fi
}

# Replays CAPTURE into REPLAY (a new store, in ZONE) and fails, naming WHAT, unless LISTING
# (glucose_rows, or glucose_values where the host clocks differ) of it is that of the store LIVE,
# which holds some reading. The listings stay beside the stores (STORE.rows).
same_as_replay() {
    local listing="$1" capture="$2" live="$3" replay="$4" zone="$5" what="$6"
    replay_into "$capture" "$replay" "$zone"
    "$listing" "$live" > "$live.rows"
    "$listing" "$replay" > "$replay.rows"
    [ -s "$live.rows" ] || fail "$what: the live import stored no reading"
    same_rows "$what" "$live.rows" "$replay.rows"
}

# Replays CAPTURE into a new store STORE in zone TZ (on the host, after the VM).
replay_into() {
    local capture="$1" store="$2" zone="$3"
    rm -f "$store" "$store-wal" "$store-shm"
    "$glucobridge" replay "$capture" --store "$store" --tz "$zone" > "$store.log" 2>&1 \
        || fail "replay of $(basename "$capture") failed: $(tail -n 1 "$store.log")"
}

# Inside the VM: the Garmin watch plugged in (the scenario's plug_watch and unplug_watch)
# imported, unplugged, plugged in again and imported again (OUT/import.log, OUT/import-again.log).
garmin_import_twice() {
    local out="$1"
    "$glucobridge" import --store "$work/live.sqlite" --tz UTC > "$out/import.log" 2>&1 \
        || fail "live import failed: $(tail -n 1 "$out/import.log")"
    unplug_watch
    plug_watch
    "$glucobridge" import --store "$work/live.sqlite" --tz UTC > "$out/import-again.log" 2>&1 \
        || fail "the import after plugging the watch in again failed: $(tail -n 1 "$out/import-again.log")"
    unplug_watch
}

# Inside the VM: the lab's MTP Garmin watch, unplugged: a configfs gadget GADGET (091e:4b48) whose
# FunctionFS function umtp-responder (Debian's MTP responder) serves, sharing FOLDER read-only (its
# GARMIN/Activity and GARMIN/Monitor), umtp-responder's log in LOG. Plug it in with
# `bind_gadget GADGET`.
serve_mtp_watch() {
    local gadget="$1" folder="$2" log="$3" ffs=/dev/ffs-mtp
    cat > "$work/umtprd.conf" <<CONF
loop_on_disconnect 1
storage "$folder" "lab watch" "ro"
manufacturer "Garmin"
product "lab watch"
serial "3999999999"
firmware_version "1.0"
interface "MTP"
usb_vendor_id  0x091e
usb_product_id 0x4b48
usb_class 0x6
usb_subclass 0x1
usb_protocol 0x1
usb_dev_version 0x0100
usb_functionfs_mode 0x1
usb_dev_path   "$ffs/ep0"
usb_epin_path  "$ffs/ep1"
usb_epout_path "$ffs/ep2"
usb_epint_path "$ffs/ep3"
usb_max_packet_size 0x200
CONF
    mkdir -p "$gadget/strings/0x409" "$gadget/configs/c.1/strings/0x409" "$gadget/functions/ffs.mtp"
    echo 0x091e > "$gadget/idVendor"
    echo 0x4b48 > "$gadget/idProduct"
    echo Garmin > "$gadget/strings/0x409/manufacturer"
    echo "lab watch" > "$gadget/strings/0x409/product"
    echo 3999999999 > "$gadget/strings/0x409/serialnumber"
    echo MTP > "$gadget/configs/c.1/strings/0x409/configuration"
    ln -s "$gadget/functions/ffs.mtp" "$gadget/configs/c.1/"
    mkdir -p "$ffs"
    mount -t functionfs mtp "$ffs"
    umtprd -conf "$work/umtprd.conf" > "$log" 2>&1 &
    # The responder has written its descriptors once ep1 exists.
    await 30 "umtp-responder to set up FunctionFS" test -e "$ffs/ep1"
}

# On the host, for a Garmin watch imported live twice (OUT/import.log, OUT/import-again.log) from
# the FIT fixtures FILE…: the second import read them all and added nothing, and the live store
# holds exactly the Exercise logs and activity minutes a replay of the same files (a folder)
# stores.
garmin_live_check() {
    local out="$1" folder="$1/files" file listing
    shift
    [ "$(grep -c "^device [0-9] of $#:" "$out/import-again.log")" = "$#" ] || fail "the second import did not read the watch's $# FIT files"
    if grep -q "[1-9][0-9]* new" "$out/import-again.log"; then
        fail "the second import added something: $(grep ' new' "$out/import-again.log" | head -n 2)"
    fi
    mkdir -p "$folder"
    for file in "$@"; do cp "$lab_root/fixtures/fit/$file" "$folder/"; done
    replay_into "$folder" "$out/replay.sqlite" UTC
    for listing in exercise_rows activity_rows; do
        "$listing" "$out/live.sqlite" > "$out/live.$listing"
        "$listing" "$out/replay.sqlite" > "$out/replay.$listing"
        [ -s "$out/live.$listing" ] || fail "the live import stored no $listing"
        same_rows "$listing of the live import and of a replay of the same files" "$out/live.$listing" "$out/replay.$listing"
    done
}

# Two emulated LE controllers linked to each other (BlueZ's btvirt over hci_vhci): hci0 is the
# central glucobridge uses, hci1 the peripheral a device model serves. btmon records both ends
# into ALL (as `btmon -w` without -i does; none when ALL is -) and hci0 alone into CENTRAL (as
# `btmon -i hci0`).
# btmon's monitor sockets get a buffer of 256 MiB: the kernel drops what a monitor leaves unread
# past its buffer, and an emulated CPU shared with the devices' models is slow to read, so that
# the captures would miss packets the controllers carried. The default is back before any other
# socket (the device's, the import's) is opened.
start_bluetooth() {
    local all="$1" central="$2"
    local default_buffer
    default_buffer="$(cat /proc/sys/net/core/rmem_default)"
    echo $((256 << 20)) > /proc/sys/net/core/rmem_default
    btmon_all_pid=""
    if [ "$all" != - ]; then
        btmon -w "$all" > /dev/null 2>&1 &
        btmon_all_pid=$!
    fi
    btvirt -L -l2 > "$LAB_OUT/btvirt.log" 2>&1 &
    await 20 "btvirt's two controllers" test -e /sys/class/bluetooth/hci1
    btmon -i hci0 -w "$central" > /dev/null 2>&1 &
    btmon_central_pid=$!
    await 10 "btmon to open its monitor socket" has_socket "$btmon_central_pid"
    [ -z "$btmon_all_pid" ] || await 10 "btmon to open its monitor socket" has_socket "$btmon_all_pid"
    echo "$default_buffer" > /proc/sys/net/core/rmem_default
    btmgmt --index 0 power on > /dev/null
    btmgmt --index 1 connectable on > /dev/null
    btmgmt --index 1 power on > /dev/null
    peripheral_address="$(btmgmt --index 1 info | awk '/addr / {print $2; exit}')"
    [ -n "$peripheral_address" ] || fail "hci1 has no address (btmgmt --index 1 info)"
}

# Whether process PID holds a socket.
has_socket() { ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'socket:'; }

# Starts advertising SERVICE (a 16-bit UUID in hex) on hci1, connectable.
advertise() {
    btmgmt --index 1 add-adv -c -g -u "$1" 1 > /dev/null
}

# Serves `glucobridge-lab-device ble MODEL ARGS…` on hci1 advertising SERVICE (a 16-bit UUID in
# hex), its log in LOG, and waits until it listens; its process id is left in device_pid.
serve_peripheral() {
    local log="$1" service="$2" model="$3"
    shift 3
    advertise "$service" || true
    "$lab_device" ble "$model" --index 1 "$@" > "$log" 2>&1 &
    device_pid=$!
    await 20 "the $model peripheral to listen on hci1" grep -q "listening" "$log"
}

stop_bluetooth() {
    sleep 0.5
    kill -INT "$btmon_central_pid" $btmon_all_pid 2>/dev/null || true
    wait "$btmon_central_pid" $btmon_all_pid 2>/dev/null || true
}

# A USB device model served as a gadget (glucobridge-lab-device usb ARGS…) and imported live
# while tcpdump captures usbmon1, then unplugged, plugged in again and imported again: the store
# OUT/live.sqlite, the import's own recording OUT/record.pcap, the capture OUT/usbmon.pcap and
# both imports' logs.
usb_live_run() {
    local out="$1" vidpid="$2" zone="$3"
    shift 3
    "$lab_device" usb "$@" > "$out/device.log" 2>&1 &
    await 30 "the device $vidpid to enumerate" usb_device_present "$vidpid"
    start_usbmon_capture "$out/usbmon.pcap"
    local TIMEFORMAT='%U %S'
    { time "$glucobridge" import --store "$work/live.sqlite" --tz "$zone" --record "$out/record.pcap" > "$out/import.log" 2>&1 \
        || fail "live import failed: $(tail -n 1 "$out/import.log")"; } 2> "$out/cpu-live"
    stop_capture
    unplug
    await 10 "the device $vidpid to leave" usb_device_absent "$vidpid"
    plug
    await 30 "the device $vidpid to enumerate again" usb_device_present "$vidpid"
    # The same session replayed from its recording in the same VM: the baseline of the live
    # figure (CPU seconds, user and system, of each whole process).
    { time "$glucobridge" replay "$out/record.pcap" --store "$work/replay-in-vm.sqlite" --tz "$zone" > "$out/replay-in-vm.log" 2>&1 \
        || fail "replay of the recording in the VM failed: $(tail -n 1 "$out/replay-in-vm.log")"; } 2> "$out/cpu-replay"
    "$glucobridge" import --store "$work/live.sqlite" > "$out/import-again.log" 2>&1 \
        || fail "second live import failed: $(tail -n 1 "$out/import-again.log")"
}

# On the host: the live store holds EXPECTED readings, the second import added none, and replays
# of the import's --record capture and of the tcpdump capture store the same rows; tshark reads
# endpoint descriptors of TYPES (bmAttributes, e.g. "0x02" for bulk) in both captures.
usb_live_check() {
    local out="$1" zone="$2" expected="$3" types="$4"
    cat "$out/import.log"
    grep -q "$expected new, 0 already stored" "$out/import.log" \
        || fail "the live import did not store $expected new records: $(grep 'records read' "$out/import.log")"
    grep -q "records read: 0 new," "$out/import-again.log" \
        || fail "the second live import was not empty: $(grep 'records read' "$out/import-again.log")"
    awk -v n="$expected" 'NR == FNR { live = $1 + $2; next } { replay = $1 + $2 }
        END { printf "live figure: %.3f ms CPU per reading live, %.3f ms replayed from its recording (ratio %.2f), %d readings, in the lab VM\n",
              1000 * live / n, 1000 * replay / n, live / replay, n }' "$out/cpu-live" "$out/cpu-replay" | tee "$out/live-figure"
    local capture
    for capture in record usbmon; do
        same_as_replay glucose_rows "$out/$capture.pcap" "$out/live.sqlite" "$out/replay-$capture.sqlite" "$zone" \
            "readings of the live import and of a replay of $capture.pcap"
        # Wireshark's dissector, independently of this project: the endpoint descriptors.
        local seen
        seen="$(tshark -r "$out/$capture.pcap" -Y 'usb.bDescriptorType == 5' -T fields -e usb.bmAttributes 2>/dev/null | tr ',' '\n' | sort -u | tr '\n' ' ')"
        echo "$capture.pcap endpoint bmAttributes: $seen"
        case " $seen" in
            *" $types"*) ;;
            *) fail "tshark reads no endpoint with bmAttributes $types in $capture.pcap (it reads: ${seen:-none})" ;;
        esac
    done
}

# On the host, for a meter with an empty memory imported by usb_live_run: the import succeeded,
# stored nothing and said the memory is empty, and replays of its --record and usbmon captures
# say the same.
usb_empty_check() {
    local out="$1" capture
    cat "$out/import.log"
    grep -q "0 new, 0 already stored" "$out/import.log" || fail "the live import of an empty meter: $(grep 'records read' "$out/import.log")"
    grep -q "memory is empty" "$out/import.log" || fail "the import report does not say the meter's memory is empty"
    [ "$(count "$out/live.sqlite" glucose)" = 0 ] || fail "the empty meter's import stored readings"
    for capture in record usbmon; do
        replay_into "$out/$capture.pcap" "$out/replay-$capture.sqlite" UTC
        grep -q "memory is empty" "$out/replay-$capture.sqlite.log" || fail "the replay of $capture.pcap does not say the memory is empty"
        [ "$(count "$out/replay-$capture.sqlite" glucose)" = 0 ] || fail "the replay of $capture.pcap stored readings"
    done
}

# A USB meter that sends something wrong (the lab device MODEL ARGS... at ID): the import must
# fail; OUT/faulted.log is its log, OUT/faulted.count the readings it stored.
#   usb_refused_run OUT ID MODEL ARGS...
usb_refused_run() {
    local out="$1" id="$2"
    "$lab_device" usb "${@:3}" > "$out/device.log" 2>&1 &
    await 30 "the meter $id to enumerate" usb_device_present "$id"
    if "$glucobridge" import --store "$work/live.sqlite" --tz UTC > "$out/faulted.log" 2>&1; then
        fail "the import of the lab meter '${*:3}' succeeded: $(tail -n 1 "$out/faulted.log")"
    fi
    if [ -f "$work/live.sqlite" ]; then count "$work/live.sqlite" glucose > "$out/faulted.count"; else echo 0 > "$out/faulted.count"; fi
}

# On the host, after usb_refused_run: the failed import's message names the meter ID and matches
# PATTERN (an extended regular expression saying WHAT it names), and it stored nothing.
#   usb_refused_check OUT ID PATTERN WHAT
usb_refused_check() {
    local out="$1" id="$2"
    cat "$out/faulted.log"
    grep -q "$id" "$out/faulted.log" || fail "the failed import's message does not name the meter: $(tail -n 1 "$out/faulted.log")"
    grep -Eq "$3" "$out/faulted.log" || fail "the failed import's message does not name $4: $(tail -n 1 "$out/faulted.log")"
    [ "$(cat "$out/faulted.count")" = 0 ] || fail "the failed import stored $(cat "$out/faulted.count") readings"
}

# A USB reader that makes FAULT (unplug, silence, stall) after AFTER answers in the middle of a
# download: the lab device MODEL ARGS... (default: a Dexcom receiver with 14 Days) at ID (default
# 22a3:0047). The first import must fail and store nothing; after the reader is plugged in again,
# the next import is complete and the one after it adds nothing. Results: OUT/faulted.log (the
# failed import), OUT/faulted.count (readings stored by it), OUT/import.log, OUT/import-again.log.
#   usb_fault_run OUT FAULT AFTER [ID MODEL ARGS...]
usb_fault_run() {
    local out="$1" fault="$2" after="$3" id="${4:-22a3:0047}"
    local model=("${@:5}")
    [ ${#model[@]} -gt 0 ] || model=(dexcom --days 14)
    "$lab_device" usb "${model[@]}" --fault "$fault" --after "$after" > "$out/device.log" 2>&1 &
    await 30 "the reader $id to enumerate" usb_device_present "$id"
    if "$glucobridge" import --store "$work/live.sqlite" --tz UTC > "$out/faulted.log" 2>&1; then
        fail "the import with a reader that made the fault '$fault' succeeded: $(tail -n 1 "$out/faulted.log")"
    fi
    if [ -f "$work/live.sqlite" ]; then count "$work/live.sqlite" glucose > "$out/faulted.count"; else echo 0 > "$out/faulted.count"; fi
    # Unplug (when the fault has not) and plug the reader in again.
    [ -z "$(cat "$gadget/UDC")" ] || unplug
    await 10 "the reader to leave the bus" usb_device_absent "$id"
    plug
    await 30 "the reader to enumerate again" usb_device_present "$id"
    "$glucobridge" import --store "$work/live.sqlite" --tz UTC > "$out/import.log" 2>&1 \
        || fail "the import after plugging the reader in again failed: $(tail -n 1 "$out/import.log")"
    "$glucobridge" import --store "$work/live.sqlite" > "$out/import-again.log" 2>&1 \
        || fail "the third import failed: $(tail -n 1 "$out/import-again.log")"
}

# On the host: the failed import's message names the device ID (default 22a3:0047) and says WORDS
# (a grep -E pattern); it stored nothing; the next import stored all READINGS (default 4004) once.
#   usb_fault_check OUT WORDS [ID READINGS]
usb_fault_check() {
    local out="$1" words="$2" id="${3:-22a3:0047}" readings="${4:-4004}"
    cat "$out/faulted.log"
    grep -q "$id" "$out/faulted.log" || fail "the failed import's message does not name the device $id: $(tail -n 1 "$out/faulted.log")"
    grep -Eq "$words" "$out/faulted.log" || fail "the failed import's message does not say what happened ($words): $(tail -n 1 "$out/faulted.log")"
    [ "$(cat "$out/faulted.count")" = 0 ] || fail "the failed import stored $(cat "$out/faulted.count") readings"
    grep -q "$readings new, 0 already stored" "$out/import.log" || fail "the import after the fault was not complete: $(grep 'records read' "$out/import.log")"
    grep -q "records read: 0 new," "$out/import-again.log" || fail "the import after that was not empty: $(grep 'records read' "$out/import-again.log")"
    [ "$(count "$out/live.sqlite" glucose)" = "$readings" ] || fail "the store holds $(count "$out/live.sqlite" glucose) readings, not $readings"
}

# The first python3 here that imports MODULE (the host's own, when the VM sees root's home).
python_with() {
    local python
    for python in python3 /usr/bin/python3 /usr/local/bin/python3 /root/.pyenv/versions/*/bin/python3; do
        if "$python" -c "import $1" 2>/dev/null; then
            echo "$python"
            return 0
        fi
    done
    fail "no python3 here has the $1 package (.ci/setup --tests installs it)"
}

# Writes the FreeStyle Libre 2 keys from the freestyle-keys Python package into FILE, as
# glucobridge's key file.
write_libre2_keys() {
    local python
    python="$(python_with freestyle_keys)"
    "$python" -c 'from freestyle_keys import libre2 as k
for name in ("AUTHORIZATION_ENCRYPTION_KEY", "AUTHORIZATION_MAC_KEY", "SESSION_ENCRYPTION_KEY", "SESSION_MAC_KEY"):
    print(name, "= 0x%032x" % getattr(k, name))' > "$1"
}

# An encrypted FreeStyle reader (glucobridge-lab-device usb MODEL: libre2 or libre3, VIDPID)
# imported live as usb_live_run does, in Europe/Berlin, with the keys of freestyle-keys.
libre_live_run() {
    local out="$1" vidpid="$2" model="$3"
    write_libre2_keys "$work/freestyle-keys"
    export GLUCOBRIDGE_FREESTYLE_KEYS="$work/freestyle-keys"
    usb_live_run "$out" "$vidpid" Europe/Berlin "$model"
}

# The hidraw node of the HID device VIDPID (vendor:product, lower-case hex).
hidraw_node() {
    local node id
    for node in /sys/class/hidraw/hidraw*; do
        id="$(sed -n 's/^HID_ID=[0-9A-F]*:0*\([0-9A-F]*\):0*\([0-9A-F]*\)$/\1:\2/p' "$node/device/uevent" | tr 'A-F' 'a-f')"
        [ "$id" = "$1" ] && echo "/dev/$(basename "$node")" && return 0
    done
    return 1
}
