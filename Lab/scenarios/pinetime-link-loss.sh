#!/usr/bin/env bash
# The simulated PineTime (InfiniTime) drops the link after its first two notifications (the step
# count at 4004 and a heart rate), before the third (4008). The VM's clock is pinetime-live's
# (2024-05-01T12:00:05Z, 14:00 on the watch in Berlin). The cut read stores the 4004 steps it
# received, spread from the watch's midnight, and its cursor holds 4004; the next read, at
# 12:03:05Z with the watch whole again and counting on from 4004 (notifying 4008 and 4012), adds
# exactly the 8 steps since: the store then holds the watch's last count, 4012, nothing twice and
# nothing negative.
# On the host: the cut read's --record btsnoop replays to the same rows.
source "$(dirname "$0")/../lib.sh"
out="$2"
zone=Europe/Berlin
case "$1" in
run)
    start_bluetooth "$out/btmon-both.btsnoop" "$out/btmon-hci0.btsnoop"
    date -s @1714564805 > /dev/null
    serve_peripheral "$out/device-cut.log" 180d pinetime --steps 4000 --zone "$zone" --drop-after-values 2
    "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/live.sqlite" --tz "$zone" \
        --record "$out/cut.btsnoop" > "$out/cut.log" 2>&1 || true
    wait "$device_pid" || true
    sqlite3 "$work/live.sqlite" ".backup '$work/cut.sqlite'"
    # The next read three minutes on (steps read in the minute of the last stored read wait for a
    # later read).
    [ "$(date +%s)" -lt 1714564985 ] || fail "the cut read ended after 12:03:05Z (the VM's clock), where the next starts"
    date -s @1714564985 > /dev/null
    serve_peripheral "$out/device-next.log" 180d pinetime --steps 4004 --zone "$zone"
    "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/live.sqlite" --tz "$zone" \
        > "$out/next.log" 2>&1 || fail "the read after the lost link failed: $(tail -n 1 "$out/next.log")"
    wait "$device_pid" || true
    stop_bluetooth
    ;;
check)
    cat "$out/cut.log" "$out/next.log"
    grep -q "fault: dropping the link after 2 values" "$out/device-cut.log" || fail "the watch did not drop the link: $(tail -n 1 "$out/device-cut.log")"
    steps() { sqlite3 "$1" "SELECT coalesce(sum(step_cadence_spm), 0) || ' ' || count(*) FILTER (WHERE step_cadence_spm < 0) FROM activity_minute"; }
    cursor() { sqlite3 "$1" "SELECT last_record_index & 4294967295 FROM source_cursor WHERE stream = 'steps'"; }
    [ "$(steps "$out/cut.sqlite")" = "4004.0 0" ] || fail "the cut read stored '$(steps "$out/cut.sqlite")' (steps, negative minutes), not the 4004 steps received"
    [ "$(cursor "$out/cut.sqlite")" = 4004 ] || fail "the cut read's cursor holds $(cursor "$out/cut.sqlite"), not 4004"
    [ "$(steps "$out/live.sqlite")" = "4012.0 0" ] \
        || fail "after the next read the store holds '$(steps "$out/live.sqlite")' (steps, negative minutes), not the watch's 4012"
    [ "$(cursor "$out/live.sqlite")" = 4012 ] || fail "the cursor holds $(cursor "$out/live.sqlite") after the next read, not 4012"
    [ "$(sqlite3 "$out/live.sqlite" "SELECT min(minute) FROM activity_minute")" = "2024-04-30 22:00:00.000" ] \
        || fail "the steps do not start at the watch's midnight: $(sqlite3 "$out/live.sqlite" "SELECT min(minute) FROM activity_minute")"
    replay_into "$out/cut.btsnoop" "$out/replay-cut.sqlite" "$zone"
    activity_rows "$out/cut.sqlite" > "$out/cut.rows"
    activity_rows "$out/replay-cut.sqlite" > "$out/replay-cut.rows"
    same_rows "activity of the cut read and of a replay of its recording" "$out/cut.rows" "$out/replay-cut.rows"
    ;;
esac
