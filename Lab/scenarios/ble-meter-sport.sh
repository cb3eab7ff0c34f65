#!/usr/bin/env bash
# The simulated Glucose-service meter (0x1808; its stored results read through the Record Access
# Control Point) as an LE peripheral on btvirt's hci1, imported live in Europe/Berlin: results on
# the consensus edges in mg/dL and mmol/L, timed by the meter's wall clock across the spring DST
# change, two with an exercise context. On the host: the live store equals a replay of the
# import's --record btsnoop (readings, exercise, instants, Days); `btmon -i hci0` and a both-ends
# `btmon -w` of the scenario's sessions replay to the same rows; tshark decodes the recording's
# ATT opcodes and handles. Then the meter drops the link in the middle of its RACP transfer,
# between a measurement and the context it announced: the import reports it naming the device,
# keeps the whole records before it and nothing of the cut one (as does a replay of its
# recording); the next import completes the store with nothing twice.
# In the same VM, one after another: the simulated running pod (Running Speed and Cadence 0x1814),
# bike sensor (Cycling Speed and Cadence 0x1816) and treadmill (Fitness Machine 0x1826), each
# imported live: their activity minutes and exercise equal replays of their --record captures,
# `btmon -i hci0` replays the same samples, and tshark counts each recording's notifications.
source "$(dirname "$0")/../lib.sh"
out="$2"
zone=Europe/Berlin
# Each sport sensor with its service, and the samples its notifications (two minutes', one a
# second) give: a bike's first only sets its counters.
seconds=120
sensors=(running-pod:1814:120 bike:1816:119 treadmill:1826:120)

# Imports the meter into STORE (in /tmp/lab), recording to OUT/NAME.btsnoop, its report in OUT/NAME.log.
import_meter() {
    local store="$1" name="$2"
    "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/$store" --tz "$zone" \
        --record "$out/$name.btsnoop" > "$out/$name.log" 2>&1
}

case "$1" in
run)
    start_bluetooth "$out/btmon-both.btsnoop" "$out/btmon-hci0.btsnoop"
    echo "$peripheral_address" > "$out/peripheral.address"
    serve_peripheral "$out/device.log" 1808 meter
    import_meter live.sqlite record || fail "live import failed: $(tail -n 1 "$out/record.log")"
    wait "$device_pid" || true
    # The count's answer, then records 1 to 3 and record 4's measurement: the link drops before
    # the context that measurement announced.
    serve_peripheral "$out/device-drop.log" 1808 meter --drop-after-values 5
    import_meter dropped.sqlite dropped || true
    wait "$device_pid" || true
    glucose_rows "$work/dropped.sqlite" > "$out/dropped.rows" 2>/dev/null || : > "$out/dropped.rows"
    exercise_rows "$work/dropped.sqlite" > "$out/dropped-exercise.rows" 2>/dev/null || : > "$out/dropped-exercise.rows"
    serve_peripheral "$out/device-after-drop.log" 1808 meter
    import_meter dropped.sqlite after-drop || fail "the import after the dropped link failed: $(tail -n 1 "$out/after-drop.log")"
    wait "$device_pid" || true
    for entry in "${sensors[@]}"; do
        IFS=: read -r sensor service _ <<< "$entry"
        serve_peripheral "$out/device-$sensor.log" "$service" "$sensor" --seconds "$seconds"
        "$glucobridge" import --ble "$peripheral_address,public" --adapter hci0 --store "$work/sport.sqlite" --tz UTC \
            --record "$out/$sensor.btsnoop" > "$out/$sensor.log" 2>&1 || fail "live import of the $sensor failed: $(tail -n 1 "$out/$sensor.log")"
        wait "$device_pid" || true
    done
    stop_bluetooth
    ;;
check)
    cat "$out/record.log"
    grep -q "12 records read: 10 readings new, 0 already stored" "$out/record.log" \
        || fail "the live import did not read the meter's 12 records as 10 new readings: $(grep 'records read' "$out/record.log")"
    tags="$(sqlite3 "$out/live.sqlite" "SELECT group_concat(mgdl || ':' || tag, ' ') FROM (SELECT mgdl, tag FROM glucose ORDER BY time)")"
    [ "$tags" = "53.0:hypo-l2 54.0:hypo-l1 69.9:hypo-l1 70.0:in-range 180.1:hyper-l1 250.4224:hyper-l1 250.0:hyper-l1 251.0:hyper-l2 600.0:hyper-l2 68.4608:hypo-l1" ] \
        || fail "the meter's readings are stored as $tags"
    # 00:30 CET on March 31 is 23:30Z on the 30th, on the meter's Day; 03:15 CEST is 01:15Z.
    placed="$(sqlite3 "$out/live.sqlite" "SELECT group_concat(g.device_record_key || '@' || g.time || '/' || d.date, ' ') FROM glucose g JOIN day d ON d.id = g.day_id WHERE g.device_record_key IN ('meter:4', 'meter:6')")"
    [ "$placed" = "meter:4@2024-03-30 23:30:00.000/2024-03-31 meter:6@2024-03-31 01:15:00.000/2024-03-31" ] \
        || fail "the meter's wall-clock times around the DST change are placed as $placed"
    [ "$(count "$out/live.sqlite" exercise)" = 2 ] || fail "the live import stored $(count "$out/live.sqlite" exercise) exercise contexts, not 2"
    for capture in record btmon-hci0 btmon-both; do
        same_as_replay glucose_rows "$out/$capture.btsnoop" "$out/live.sqlite" "$out/replay-$capture.sqlite" "$zone" \
            "readings of the live import and of a replay of $capture.btsnoop"
        exercise_rows "$out/live.sqlite" > "$out/live-exercise.rows"
        exercise_rows "$out/replay-$capture.sqlite" > "$out/replay-$capture-exercise.rows"
        same_rows "exercise of the live import and of a replay of $capture.btsnoop" "$out/live-exercise.rows" "$out/replay-$capture-exercise.rows"
    done
    # Wireshark's dissector: 12 Glucose Measurement notifications (handle 0x000d), 2 contexts
    # (0x0010), the RACP's two writes and two indications (0x0015).
    att="$(tshark -r "$out/record.btsnoop" -Y 'btatt.opcode == 0x12 || btatt.opcode == 0x1b || btatt.opcode == 0x1d' -T fields -e btatt.opcode -e btatt.handle 2>/dev/null \
        | sort | uniq -c | awk '{print $1 "x" $2 "@" $3}' | tr '\n' ' ')"
    echo "ATT writes and values in the recording: $att"
    for expected in 2x0x12@0x0015 12x0x1b@0x000d 2x0x1b@0x0010 2x0x1d@0x0015; do
        case " $att" in *" $expected "*) ;; *) fail "tshark does not read $expected (count x opcode @ handle) in the recording: $att" ;; esac
    done
    # The dropped link: named, the whole records before the cut kept, the cut one left out.
    cat "$out/dropped.log" "$out/after-drop.log"
    address="$(cat "$out/peripheral.address")"
    grep -i "problem:.*ended before the device's response code.*$address" "$out/dropped.log" \
        || fail "the import whose link dropped during the RACP transfer did not report it, naming $address: $(grep -i problem "$out/dropped.log")"
    grep -q "context-not-received 1" "$out/dropped.log" || fail "the cut import does not say it left out the measurement without its context"
    grep -E '^meter:[1-3] ' "$out/live.sqlite.rows" > "$out/first-three.rows"
    same_rows "readings after the cut import and the meter's first three" "$out/dropped.rows" "$out/first-three.rows"
    [ ! -s "$out/dropped-exercise.rows" ] || fail "the cut import stored exercise: $(cat "$out/dropped-exercise.rows")"
    replay_into "$out/dropped.btsnoop" "$out/replay-dropped.sqlite" "$zone"
    glucose_rows "$out/replay-dropped.sqlite" > "$out/replay-dropped.rows"
    same_rows "readings of the cut import and of a replay of its recording" "$out/dropped.rows" "$out/replay-dropped.rows"
    grep -q "12 records read: 7 readings new, 3 already stored" "$out/after-drop.log" \
        || fail "the import after the dropped link did not complete the store: $(grep 'records read' "$out/after-drop.log")"
    glucose_rows "$out/dropped.sqlite" > "$out/after-drop.rows"
    same_rows "readings after the cut import and the next one, and of the whole session" "$out/after-drop.rows" "$out/live.sqlite.rows"
    exercise_rows "$out/dropped.sqlite" > "$out/after-drop-exercise.rows"
    same_rows "exercise after the cut import and the next one, and of the whole session" "$out/after-drop-exercise.rows" "$out/live-exercise.rows"
    
    # The sport sensors: every notification read; the recordings replay to the same minutes.
    rm -f "$out/replay-sport.sqlite"
    for entry in "${sensors[@]}"; do
        IFS=: read -r sensor _ samples <<< "$entry"
        cat "$out/$sensor.log"
        grep -q "$samples samples" "$out/$sensor.log" || fail "the live import of the $sensor did not read $samples samples: $(grep samples "$out/$sensor.log")"
        "$glucobridge" replay "$out/$sensor.btsnoop" --store "$out/replay-sport.sqlite" --tz UTC > "$out/replay-$sensor.log" 2>&1 \
            || fail "replay of $sensor.btsnoop failed: $(tail -n 1 "$out/replay-$sensor.log")"
        grep -q "$samples samples" "$out/replay-$sensor.log" || fail "the replay of $sensor.btsnoop did not read $samples samples: $(grep samples "$out/replay-$sensor.log")"
        grep -q "$samples samples" "$out/replay-btmon-hci0.sqlite.log" \
            || fail "the replay of btmon-hci0.btsnoop did not read the $sensor's $samples samples: $(grep samples "$out/replay-btmon-hci0.sqlite.log")"
        notified="$(tshark -r "$out/$sensor.btsnoop" -Y 'btatt.opcode == 0x1b' -T fields -e btatt.opcode 2>/dev/null | wc -l)"
        [ "$notified" = "$seconds" ] || fail "tshark reads $notified Handle Value Notifications in $sensor.btsnoop, not $seconds"
    done
    activity_rows "$out/sport.sqlite" > "$out/sport.rows"
    activity_rows "$out/replay-sport.sqlite" > "$out/replay-sport.rows"
    [ "$(cut -d '|' -f 2 "$out/sport.rows" | sort -u | tr -d ' ' | tr '\n' ' ')" = "ble-csc ble-ftms ble-rsc " ] \
        || fail "the sport store's activity minutes come from $(cut -d '|' -f 2 "$out/sport.rows" | sort -u | tr '\n' ' ')"
    same_rows "activity minutes of the sport sensors imported live and of replays of their recordings" "$out/sport.rows" "$out/replay-sport.rows"
    # What the sensors sent, decoded: 2 × 2.096 m of wheel and 80 crank revolutions a minute; 8.50 km/h.
    decoded="$(sqlite3 "$out/sport.sqlite" "SELECT group_concat(v, ' ') FROM (SELECT DISTINCT v.service || ':' || coalesce(round(m.crank_cadence_rpm, 6), '-') || ':' || round(m.speed_mps, 6) AS v
        FROM activity_minute m JOIN source_service v ON v.source_id = m.source_id WHERE v.service IN ('ble-csc', 'ble-ftms') ORDER BY v)")"
    [ "$decoded" = "ble-csc:80.0:4.192 ble-ftms:-:2.361111" ] || fail "the bike and the treadmill imported live stored $decoded"
    exercise_rows "$out/sport.sqlite" > "$out/sport-exercise.rows"
    exercise_rows "$out/replay-sport.sqlite" > "$out/replay-sport-exercise.rows"
    same_rows "exercise of the sport sensors imported live and of replays of their recordings" "$out/sport-exercise.rows" "$out/replay-sport-exercise.rows"
    ;;
esac
