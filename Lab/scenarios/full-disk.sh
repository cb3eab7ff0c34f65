#!/usr/bin/env bash
# A full disk: the store on an 8 MiB tmpfs holds a replayed capture's 23 readings, and an app (the
# sqlite3 program) has it open; a file then takes every free block, and a Dexcom receiver with
# 4004 readings is imported live. The import ends with one line naming the store and "no space",
# stores nothing, and the app still reads the store, whole; once space is freed, the next import
# stores the 4004 readings once.
source "$(dirname "$0")/../lib.sh"
out="$2"
small=/tmp/small
store="$small/store.sqlite"
spooled="$lab_root/fixtures/dexcom/ecc1-g4-receiver.pcap"

case "$1" in
run)
    mkdir -p "$small"
    mount -t tmpfs -o size=8m tmpfs "$small"
    "$glucobridge" replay "$spooled" --store "$store" --tz UTC > "$out/first.log" 2>&1 \
        || fail "the first replay failed: $(tail -n 1 "$out/first.log")"
    "$lab_device" usb dexcom --days 14 > "$out/device.log" 2>&1 &
    await 30 "the receiver to enumerate" usb_device_present 22a3:0047
    # The app: a sqlite3 process with the store open from before the disk filled, fed from a pipe
    # (opened after the device model started, which would otherwise hold it open too).
    mkfifo "$work/app.in"
    stdbuf -oL sqlite3 "$store" < "$work/app.in" > "$out/app.out" 2>&1 &
    app_pid=$!
    exec 7> "$work/app.in"
    echo "SELECT 'before', count(*) FROM glucose;" >&7
    await 20 "the app to read the store" grep -q "^before|" "$out/app.out"
    dd if=/dev/zero of="$small/filler" bs=4096 > /dev/null 2>&1 || true
    df -k "$small" > "$out/df-full"
    if "$glucobridge" import --store "$store" --tz UTC > "$out/full.log" 2>&1 7>&-; then
        fail "the import into a store on a full file system succeeded: $(tail -n 1 "$out/full.log")"
    fi
    echo "SELECT 'after', count(*) FROM glucose; SELECT 'runs', count(*) FROM import_run; PRAGMA integrity_check;" >&7
    exec 7>&-
    # Its exit status is not asked: closing the last connection checkpoints the WAL into the
    # store, which cannot grow on the full disk (SQLite then keeps the WAL; its reads are above).
    wait "$app_pid" || true
    rm "$small/filler"
    "$glucobridge" import --store "$store" --tz UTC > "$out/import.log" 2>&1 \
        || fail "the import after space was freed failed: $(tail -n 1 "$out/import.log")"
    sqlite3 "$store" "PRAGMA wal_checkpoint(TRUNCATE);" > /dev/null
    cp "$store" "$out/small.sqlite"
    ;;
check)
    cat "$out/df-full" "$out/full.log" "$out/app.out"
    [ "$(wc -l < "$out/full.log")" = 1 ] || fail "the import on the full disk printed $(wc -l < "$out/full.log") lines, not one"
    grep -q "$store" "$out/full.log" || fail "the import on the full disk does not name the store: $(cat "$out/full.log")"
    grep -q "no space" "$out/full.log" || fail "the import on the full disk does not say \"no space\": $(cat "$out/full.log")"
    grep -qx 'before|23' "$out/app.out" || fail "the app did not read the 23 readings before the disk filled: $(tr '\n' ' ' < "$out/app.out")"
    grep -qx 'after|23' "$out/app.out" || fail "the app does not read the 23 readings after the failed import: $(tr '\n' ' ' < "$out/app.out")"
    grep -qx 'runs|1' "$out/app.out" || fail "the failed import left an import run: $(tr '\n' ' ' < "$out/app.out")"
    grep -qx 'ok' "$out/app.out" || fail "the store's integrity check after the failed import is not ok: $(tr '\n' ' ' < "$out/app.out")"
    grep -q "4004 new, 0 already stored" "$out/import.log" || fail "the import after space was freed was not complete: $(grep 'records read' "$out/import.log")"
    [ "$(count "$out/small.sqlite" glucose)" = 4027 ] || fail "the store holds $(count "$out/small.sqlite" glucose) readings, not 23 + 4004"
    ;;
esac
