#!/usr/bin/env bash
# The simulated Huami band (two days of history from huami-live's) drops the link in the middle
# of the first fetch, after 300 notifications (the authentication's two, the fetch's start answer
# and 297 data packets of 19 bytes: 705 whole 8-byte minutes and 3 bytes of the next). The import
# keeps exactly those 705 minutes and says the fetch was cut; the next import, with the band
# whole again, starts after them and completes the store: the same minutes, walks and cursor as
# one uninterrupted import, nothing twice. The cut import's --record btsnoop replays (with the
# key) to the same 705 minutes.
source "$(dirname "$0")/../lib.sh"
out="$2"
zone=Europe/Berlin
case "$1" in
run)
    start_bluetooth "$out/btmon-both.btsnoop" "$out/btmon-hci0.btsnoop"
    key="$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
    echo "$peripheral_address = 0x$key" > "$out/huami.keys"
    export GLUCOBRIDGE_HUAMI_KEYS="$out/huami.keys"
    serve_peripheral "$out/device-cut.log" fee0 huami --key "$key" --days 2 --drop-after-values 300
    "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/cut.sqlite" --tz "$zone" \
        --record "$out/cut.btsnoop" > "$out/cut.log" 2>&1 || true
    wait "$device_pid" || true
    activity_rows "$work/cut.sqlite" > "$out/cut.rows" 2>/dev/null || : > "$out/cut.rows"
    serve_peripheral "$out/device-next.log" fee0 huami --key "$key" --days 2
    "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/cut.sqlite" --tz "$zone" \
        > "$out/next.log" 2>&1 || fail "the import after the lost link failed: $(tail -n 1 "$out/next.log")"
    wait "$device_pid" || true
    serve_peripheral "$out/device-whole.log" fee0 huami --key "$key" --days 2
    "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/whole.sqlite" --tz "$zone" \
        > "$out/whole.log" 2>&1 || fail "the uninterrupted import failed: $(tail -n 1 "$out/whole.log")"
    stop_bluetooth
    ;;
check)
    cat "$out/cut.log" "$out/next.log"
    grep -q "fault: dropping the link after 300 values" "$out/device-cut.log" || fail "the band did not drop the link: $(tail -n 1 "$out/device-cut.log")"
    grep -q "cut: the link was lost" "$out/cut.log" || fail "the cut import does not say the fetch was cut by the lost link: $(tail -n 3 "$out/cut.log")"
    [ "$(wc -l < "$out/cut.rows")" = 705 ] || fail "the cut import stored $(wc -l < "$out/cut.rows") minutes, not the 705 whole ones received"
    span="$(head -n 1 "$out/cut.rows" | cut -d '|' -f 1)to $(tail -n 1 "$out/cut.rows" | cut -d '|' -f 1)"
    [ "$span" = "2024-03-28 23:00:00.000 to 2024-03-29 10:44:00.000 " ] || fail "the cut import's minutes run $span"
    export GLUCOBRIDGE_HUAMI_KEYS="$out/huami.keys"
    replay_into "$out/cut.btsnoop" "$out/replay-cut.sqlite" "$zone"
    activity_rows "$out/replay-cut.sqlite" > "$out/replay-cut.rows"
    same_rows "activity of the cut import and of a replay of its --record btsnoop" "$out/cut.rows" "$out/replay-cut.rows"
    activity_rows "$out/whole.sqlite" > "$out/whole.rows"
    while read -r row; do
        grep -qxF "$row" "$out/whole.rows" || fail "the cut import stored a minute the band does not hold so: $row"
    done < "$out/cut.rows"
    activity_rows "$out/cut.sqlite" > "$out/completed.rows"
    [ "$(wc -l < "$out/whole.rows")" = 2880 ] || fail "the uninterrupted import stored $(wc -l < "$out/whole.rows") minutes, not 2880"
    same_rows "activity after the cut import and the next one, and of an uninterrupted import" "$out/completed.rows" "$out/whole.rows"
    exercise_rows "$out/cut.sqlite" > "$out/completed.exercise"
    exercise_rows "$out/whole.sqlite" > "$out/whole.exercise"
    same_rows "the walks after the cut import and the next one, and of an uninterrupted import" "$out/completed.exercise" "$out/whole.exercise"
    cursor() { sqlite3 "$1" "SELECT last_record_index FROM source_cursor WHERE stream = 'activity'"; }
    [ "$(cursor "$out/cut.sqlite")" = "$(cursor "$out/whole.sqlite")" ] \
        || fail "the cursor after the cut and the next import is $(cursor "$out/cut.sqlite"), not $(cursor "$out/whole.sqlite")"
    ;;
esac
