#!/usr/bin/env bash
# The simulated PineTime (InfiniTime) as an LE peripheral on btvirt's hci1, read live twice as the
# daemon reads it on its Bluetooth schedule. The VM's clock is set to 2024-05-01T12:00:05Z (14:00
# on the watch, in Berlin) so that the minutes are known: the first read finds 4000 steps and two
# notifications to 4008, spread from the watch's midnight (22:00Z) to 12:00Z; the clock is then
# set to 12:03:05Z and the watch, restarted, counts 120 and notifies to 128, which are stored as
# 128 steps over 12:01-12:03Z, never as negative steps. On the host: the first import's --record
# btsnoop and `btmon -i hci0` replay to the rows of the first read (a capture's connections are all
# read before any is stored, so the second read of `btmon -i hci0` is not compared).
source "$(dirname "$0")/../lib.sh"
out="$2"
zone=Europe/Berlin
first_minute='2024-05-01 12:00:00.000'
case "$1" in
run)
    start_bluetooth "$out/btmon-both.btsnoop" "$out/btmon-hci0.btsnoop"
    date -s @1714564805 > /dev/null
    serve_peripheral "$out/device.log" 180d pinetime --steps 4000 --zone "$zone"
    "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/live.sqlite" --tz "$zone" \
        --record "$out/record.btsnoop" > "$out/import.log" 2>&1 || fail "live import failed: $(tail -n 1 "$out/import.log")"
    wait "$device_pid" || true
    [ "$(date +%s)" -lt 1714564985 ] || fail "the first read ended after 12:03:05Z (the VM's clock), where the second starts"
    date -s @1714564985 > /dev/null
    serve_peripheral "$out/device-again.log" 180d pinetime --steps 120 --zone "$zone"
    "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/live.sqlite" --tz "$zone" \
        > "$out/again.log" 2>&1 || fail "the second import failed: $(tail -n 1 "$out/again.log")"
    wait "$device_pid" || true
    stop_bluetooth
    ;;
check)
    cat "$out/import.log" "$out/again.log"
    store="$out/live.sqlite"
    grep -q "went down from 4008 to 128" "$out/again.log" || fail "the second import does not say the watch restarted"
    steps() { sqlite3 "$store" "SELECT coalesce(sum(step_cadence_spm), 0) || ' ' || count(step_cadence_spm) FROM activity_minute WHERE $1"; }
    # 4008 steps over the 841 minutes 22:00Z–12:00Z, 4 or 5 each.
    [ "$(steps "minute <= '$first_minute'")" = "4008.0 841" ] || fail "the first read stored '$(steps "minute <= '$first_minute'")', not 4008 steps in 841 minutes"
    [ "$(steps "minute > '$first_minute'")" = "128.0 3" ] \
        || fail "the read after the restart stored '$(steps "minute > '$first_minute'")', not 128 steps in 3 minutes"
    [ "$(steps "step_cadence_spm < 0")" = "0 0" ] || fail "negative steps were stored"
    [ "$(sqlite3 "$store" "SELECT min(minute) FROM activity_minute")" = "2024-04-30 22:00:00.000" ] \
        || fail "the steps do not start at the watch's midnight: $(sqlite3 "$store" "SELECT min(minute) FROM activity_minute")"
    [ "$(sqlite3 "$store" "SELECT last_record_index & 4294967295 FROM source_cursor WHERE stream = 'steps'")" = 128 ] \
        || fail "the steps cursor does not hold the last count, 128"
    [ "$(sqlite3 "$store" "SELECT device_time FROM import_run ORDER BY id LIMIT 1")" \> "2024-05-01 14:00:00.000" ] \
        || fail "the watch's clock is not kept with the import: $(sqlite3 "$store" "SELECT device_time FROM import_run")"
    sqlite3 "$store" "SELECT count(*) FROM activity_minute WHERE heart_rate_bpm IS NOT NULL" | grep -qv '^0$' \
        || fail "no heart rate was stored"
    activity_rows "$store" | awk -v last="$first_minute" -F ' [|] ' '$1 <= last' > "$out/live.rows"
    for capture in record btmon-hci0; do
        replay_into "$out/$capture.btsnoop" "$out/replay-$capture.sqlite" "$zone"
        activity_rows "$out/replay-$capture.sqlite" | awk -v last="$first_minute" -F ' [|] ' '$1 <= last' > "$out/replay-$capture.rows"
        same_rows "activity of the first live read and of a replay of $capture.btsnoop" "$out/live.rows" "$out/replay-$capture.rows"
    done
    ;;
esac
