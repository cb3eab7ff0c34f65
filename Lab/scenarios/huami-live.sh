#!/usr/bin/env bash
# The simulated Huami band (a Mi Smart Band 5: three days of per-minute history over Berlin's
# spring DST change, 8-byte samples) as an LE peripheral on btvirt's hci1, imported live: it
# authenticates with a test key made for this run and given to glucobridge in a key file named by
# GLUCOBRIDGE_HUAMI_KEYS, as a user's key from huami-token is; every minute and each of its three
# workouts (sports summaries, graded by their details) is stored once; a
# second import finds nothing newer and adds nothing. On the host: the import's --record btsnoop
# replays (by conversation, with the same key) to the same rows, and `btmon -i hci0` (read
# passively, without the key) too.
source "$(dirname "$0")/../lib.sh"
out="$2"
zone=Europe/Berlin
case "$1" in
run)
    start_bluetooth "$out/btmon-both.btsnoop" "$out/btmon-hci0.btsnoop"
    key="$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
    echo "$peripheral_address = 0x$key" > "$out/huami.keys"
    export GLUCOBRIDGE_HUAMI_KEYS="$out/huami.keys"
    serve_peripheral "$out/device.log" fee0 huami --key "$key" --days 3
    "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/live.sqlite" --tz "$zone" \
        --record "$out/record.btsnoop" > "$out/import.log" 2>&1 || fail "live import failed: $(tail -n 1 "$out/import.log")"
    wait "$device_pid" || true
    serve_peripheral "$out/device-again.log" fee0 huami --key "$key" --days 3
    "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/live.sqlite" --tz "$zone" \
        > "$out/again.log" 2>&1 || fail "the second import failed: $(tail -n 1 "$out/again.log")"
    wait "$device_pid" || true
    stop_bluetooth
    ;;
check)
    cat "$out/import.log" "$out/again.log"
    export GLUCOBRIDGE_HUAMI_KEYS="$out/huami.keys"
    grep -q "authenticated with the auth key from .*/huami.keys" "$out/import.log" \
        || fail "the import does not say it authenticated with the key file: $(grep -i auth "$out/import.log" | head -n 1)"
    activity_rows "$out/live.sqlite" > "$out/live.rows"
    [ "$(wc -l < "$out/live.rows")" = 4260 ] || fail "the live import stored $(wc -l < "$out/live.rows") activity minutes, not the band's 4260"
    # 07:30 CET on 2024-03-30, the first minute of the second morning's walk: 104 steps, 112 bpm,
    # the band's kind byte 0x01 and intensity byte 60 as sent.
    walk="$(sqlite3 "$out/live.sqlite" "SELECT heart_rate_bpm || ' ' || step_cadence_spm || ' ' || device_activity_kind || ' ' || device_intensity FROM activity_minute WHERE minute = '2024-03-30 06:30:00.000'")"
    [ "$walk" = "112.0 104.0 1 60" ] || fail "the minute 2024-03-30 06:30 UTC is stored as '${walk}', not 112 bpm, 104 steps, kind 1, intensity 60"
    [ "$(sqlite3 "$out/live.sqlite" "SELECT last_record_index FROM source_cursor WHERE stream = 'activity'")" = 28532039 ] \
        || fail "the cursor is $(sqlite3 "$out/live.sqlite" "SELECT last_record_index FROM source_cursor") after the whole history, not minute 28532039"
    # The band's three morning walks, logged as workouts (summary versions 518, 516, 259): 07:30
    # local, CET then CEST, with the band's distance (m) and calories (as kJ), graded moderate by
    # the heart rates of each one's detail (fetch type 0x06); stored once although the band was
    # read twice.
    workouts_sql="SELECT time, name, duration_seconds, intensity, distance_m, energy_kj, device_record_key FROM exercise WHERE device_record_key LIKE 'workout:%' ORDER BY time"
    sqlite3 -separator ' ' "$out/live.sqlite" "$workouts_sql" > "$out/live.workouts"
    printf '%s\n' "2024-03-29 06:30:00.000 Walking 2400.0 moderate 4150.0 887.008 workout:2024-03-29T06:30Z" \
        "2024-03-30 06:30:00.000 Walking 2400.0 moderate 4175.5 893.284 workout:2024-03-30T06:30Z" \
        "2024-03-31 05:30:00.000 Walking 2400.0 moderate 4201.0 899.56 workout:2024-03-31T05:30Z" > "$out/expected.workouts"
    details="$(grep -c "fetch of type 0x06 from .*: 3864 of 3864 bytes" "$out/import.log")"
    [ "$details" = 3 ] || fail "the import read $details whole sports details (fetch type 0x06), not the band's 3: $(grep -m1 "type 0x06" "$out/import.log")"
    same_rows "the band's workouts as stored and as served" "$out/expected.workouts" "$out/live.workouts"
    for capture in record btmon-hci0; do
        replay_into "$out/$capture.btsnoop" "$out/replay-$capture.sqlite" "$zone"
        activity_rows "$out/replay-$capture.sqlite" > "$out/replay-$capture.rows"
        same_rows "activity of the live import and of a replay of $capture.btsnoop" "$out/live.rows" "$out/replay-$capture.rows"
        sqlite3 -separator ' ' "$out/replay-$capture.sqlite" "$workouts_sql" > "$out/replay-$capture.workouts"
        same_rows "workouts of the live import and of a replay of $capture.btsnoop" "$out/live.workouts" "$out/replay-$capture.workouts"
    done
    ;;
esac
