#!/usr/bin/env bash
# lab: host
# lab-timeout: 2700
# Power loss in the middle of imports. The store lives on an ext4 file system on a virtio disk
# (an image mkfs.ext4 makes on the host). In each boot the app (a sqlite3 process at the shell's
# defaults) commits numbered insulin logs and prints each number once its commit has returned,
# while glucobridge replays a Dexcom capture (14 days, 4031 readings; LAB_POWER_DAYS changes it)
# into the same store. The
# host cuts the power: QEMU is killed (SIGKILL: no shutdown, no sync, the guest's page cache
# gone) at the k-th step the guest announces, plus a small delay, so that the cuts land while the
# store is checked, before the import's commit, while its WAL frames are written, after it printed
# success, while a checkpoint copies them into the store file and while only the app writes. The next boot
# mounts the same disk (ext4 replays its journal) and, before anything else writes, records what
# the store holds; the host then checks, for every cut: `PRAGMA integrity_check` is ok, each
# import run is whole (its run row and all its readings) or absent, every import that printed
# success is there, every row the app saw committed is there, and the next import of the same
# capture completes with nothing twice (the store holds exactly the capture's readings).
#
# Two chains of cuts on two disks run side by side (LAB_POWER_CUTS cuts in all, 30 by default;
# `LAB_POWER_CUTS=200 LAB_TIMEOUT=7200 Lab/run power-loss` is the longer run; LAB_POWER_DAYS=90
# cuts a 90-day capture's import, about five times as long a boot). Each chain ends
# with one boot that is not cut. A store that holds the capture whole gets one more import of it
# (adding nothing), then the boot imports into a new store (the next generation,
# store-G.sqlite), so that every generation's import can be cut again.
source "$(dirname "$0")/../lib.sh"
out="$2"

# The steps the guest announces, in order (OUT/progress: "ORDER NAME UPTIME" a line); a cut
# planned at step K lands at the first announced step at or after K. commit-early and
# commit-late: the import has written 1/6 and 2/3 of its WAL frames (its commit; the host measures
# what the same import writes into a store of its own, where its close copies the frames into the
# store file, twice the WAL). checkpoint: the app copies the WAL into the store file, as SQLite's
# automatic checkpoint does at a commit once the WAL passes 1000 pages (a longer capture's import).
steps=(mounted checked reimported import-started commit-early commit-late imported checkpoint app-after)

# The step numbered ORDER (1-based) by its name.
step_name() { echo "${steps[$(($1 - 1))]}"; }

case "$1" in
run)
    # --- inside a VM: one boot of a chain (OUT/plan says which, and whether it is the last) ---
    plan() { sed -n "s/^$1=//p" "$out/plan"; }
    capture="$(plan capture)"
    expected="$(plan expected)"
    boot="$(plan boot)"
    final="$(plan final)"
    disk=/tmp/disk
    announce() {
        local order=1
        while [ "$(step_name "$order")" != "$1" ]; do order=$((order + 1)); done
        local uptime
        read -r uptime _ < /proc/uptime
        echo "$order $1 ${uptime}s" >> "$out/progress"
    }

    mkdir -p "$disk"
    mount -t ext4 /dev/vda "$disk" || fail "cannot mount the disk /dev/vda as ext4"
    dmesg | grep -i 'EXT4-fs (vda)' > "$out/ext4.log" || true
    announce mounted

    # What the store of the newest generation holds, read before anything writes to it.
    generation=0
    for store in "$disk"/store-*.sqlite; do
        [ -f "$store" ] || continue
        number="${store##*/store-}"
        number="${number%.sqlite}"
        if [ "$number" -gt "$generation" ]; then generation="$number"; fi
    done
    whole=false
    if [ "$generation" -gt 0 ]; then
        store="$disk/store-$generation.sqlite"
        echo "$generation" > "$out/generation"
        sqlite3 "$store" "PRAGMA integrity_check;" > "$out/integrity" 2>&1 || true
        sqlite3 -separator '|' "$store" "SELECT r.id, r.records_added, r.records_already_stored,
            (SELECT count(*) FROM glucose g WHERE g.import_run_id = r.id) FROM import_run r ORDER BY r.id;" > "$out/runs" 2>&1 || true
        sqlite3 "$store" "SELECT count(*) FROM glucose WHERE source_id IS NOT NULL;" > "$out/count" 2>&1 || true
        sqlite3 "$store" "SELECT uid FROM insulin ORDER BY uid;" > "$out/app-rows" 2>&1 || true
        if [ "$(cat "$out/count")" = "$expected" ]; then whole=true; fi
    fi
    announce checked

    # A store holding the capture whole: the same capture again adds nothing; then a new store.
    if [ "$whole" = true ]; then
        "$glucobridge" replay "$capture" --store "$store" --tz UTC > "$out/reimport-g$generation.log" 2>&1 \
            || fail "the import of the capture again into store-$generation failed: $(tail -n 1 "$out/reimport-g$generation.log")"
        sqlite3 "$store" "SELECT count(*) FROM glucose WHERE source_id IS NOT NULL;" > "$out/reimport-count"
        announce reimported
        if [ "$final" = 1 ]; then exit 0; fi
        rm -f "$disk/store-$((generation - 1)).sqlite"*
        generation=$((generation + 1))
    fi
    [ "$generation" -gt 0 ] || generation=1
    store="$disk/store-$generation.sqlite"
    [ -f "$store" ] || "$glucobridge" profile --store "$store" --tz UTC > "$out/create-g$generation.log" 2>&1 \
        || fail "glucobridge could not create store-$generation: $(tail -n 1 "$out/create-g$generation.log")"

    # The app: one sqlite3 process, at the shell's defaults (WAL, synchronous FULL), committing
    # an insulin log every 0.2 s and printing its uid once the commit has returned.
    mkfifo "$work/app.in"
    stdbuf -oL sqlite3 -batch "$store" < "$work/app.in" > "$out/app-g$generation.log" 2>&1 &
    app_pid=$!
    exec 7> "$work/app.in"
    {
        printf '%s\n' ".timeout 60000" ".bail on" "PRAGMA foreign_keys = ON;" "INSERT OR IGNORE INTO day(date) VALUES (date('now'));"
        row=1
        while :; do
            uid="g$generation-b$boot-$row"
            echo "INSERT INTO insulin(day_id, time, units, uid) SELECT id, strftime('%Y-%m-%d %H:%M:%f', 'now'), 1, '$uid'
                  FROM day WHERE date = date('now'); SELECT 'committed', '$uid';"
            row=$((row + 1))
            sleep 0.2
        done
    } >&7 &
    feeder_pid=$!

    # The import's progress by what it has written (/proc/PID/io, read without starting a
    # process): its commit writes the WAL frames (plan's marks: bytes written at each step). A read of a silent fifo with a time limit is
    # the pause between looks.
    mkfifo "$work/tick"
    exec 9<> "$work/tick"
    "$glucobridge" replay "$capture" --store "$store" --tz UTC > "$out/import-g$generation.log" 2>&1 &
    import_pid=$!
    announce import-started
    {
        read -r -a marks <<< "$(plan marks)"
        for step in commit-early commit-late; do
            mark="${marks[0]}"
            marks=("${marks[@]:1}")
            while :; do
                written=0
                while read -r key value; do
                    if [ "$key" = wchar: ]; then written="$value"; fi
                done < "/proc/$import_pid/io" || exit 0
                [ "$written" -lt "$mark" ] || break
                read -r -t 0.05 -u 9 _ || true
            done
            announce "$step"
        done
    } 2> /dev/null &
    watcher_pid=$!
    wait "$import_pid" || fail "the import into store-$generation failed: $(tail -n 1 "$out/import-g$generation.log")"
    kill "$watcher_pid" 2> /dev/null || true
    sqlite3 "$store" "SELECT count(*) FROM glucose WHERE source_id IS NOT NULL;" > "$out/import-count"
    announce imported
    if [ "$final" = 1 ]; then
        kill "$feeder_pid"
        exec 7>&-
        wait "$app_pid" || fail "the app failed: $(tail -n 1 "$out/app-g$generation.log")"
        exit 0
    fi
    announce checkpoint
    echo "PRAGMA wal_checkpoint(TRUNCATE); SELECT 'checkpointed';" >&7
    app_rows() { grep -c '^committed|' "$out/app-g$generation.log"; }
    before="$(app_rows || true)"
    app_committed_more() { [ "$(app_rows)" -gt "$before" ]; }
    await 30 "the app to commit a row after the import" app_committed_more
    announce app-after
    # The host cuts the power by now; a boot it leaves running fails.
    await 120 "the power to be cut" false
    ;;
host)
    # --- on the host: the chains of boots and cuts ---
    source "$lab_root/Lab/vm.sh"
    # Its many boots on a busy machine: the kernel's check of the emulated timer can fail when
    # the host is slow, which panics the boot ("IO-APIC + timer doesn't work").
    # Its VMs load only the modules of 9p, the virtio disk and ext4.
    lab_kernel_args="lab.modules=virtio,9p,netfs,fscache,ext4,jbd2,mbcache,crc"
    total="${LAB_POWER_CUTS:-30}"
    chains=2
    captures="$lab_root/.build-lab/power-loss"
    days="${LAB_POWER_DAYS:-14}"
    capture="$captures/receiver-g6-${days}d.pcap"
    if [ ! -f "$capture" ]; then
        "$lab_bin/glucobridge-bench" --capture "$days" "$capture" > "$out/captures.log" 2>&1 \
            || fail "glucobridge-bench could not write the capture: $(tail -n 1 "$out/captures.log")"
    fi
    # The capture's readings, and the bytes its import writes (its commit, then its close's
    # checkpoint as much again; a process's /proc/PID/io counts a child's writes once it has
    # waited for it), from an import
    # into a store of its own on the host, made as the guest makes its stores.
    oracle="$out/oracle.sqlite"
    rm -f "$oracle"*
    "$glucobridge" profile --store "$oracle" --tz UTC > "$out/oracle-create.log" 2>&1 \
        || fail "glucobridge could not create the oracle store: $(tail -n 1 "$out/oracle-create.log")"
    written="$(bash -c '"$@" > /dev/null 2>&1 || exit 1; sed -n "s/^wchar: //p" /proc/$$/io' - \
        "$glucobridge" replay "$capture" --store "$oracle" --tz UTC)" || fail "the replay of $(basename "$capture") into the oracle store failed"
    expected="$(count "$oracle" glucose)"
    echo "$expected" > "$out/expected"
    marks="$((written / 12)) $((written / 3))"
    echo "the import of $(basename "$capture") stores $expected readings and writes $written bytes; steps at $marks" > "$out/marks.log"
    # Stopped early (Lab/run's timeout), the chains' VMs go too.
    chain_pids=()
    trap 'kill -KILL "${chain_pids[@]}" $(cat "$out"/chain-*/qemu.pid 2>/dev/null) 2>/dev/null; exit 1' TERM INT

    # The VM of BOOT (a chain's folder) stopped by itself: WHO and why, into the chain's "failed".
    stopped() {
        local why
        if [ -f "$boot/guest-status" ]; then
            why="the scenario failed inside: $(tail -n 1 "$boot/scenario.log")"
        else
            why="the VM stopped: $(grep -v '^\s*$' "$boot/console.log" | grep -m 1 -i 'panic\|error' || tail -n 1 "$boot/console.log")"
        fi
        echo "$1 $why (console: $boot/console.log)" > "$dir/failed"
    }

    # One chain: CUTS boots cut at planned steps, then one boot left to finish.
    chain() {
        local c="$1" cuts="$2" dir="$out/chain-$1" b i order delay boot pid landed
        mkdir -p "$dir"
        mkfs.ext4 -F -q "$dir/disk.img" 64M > /dev/null
        for ((b = 1; b <= cuts + 1; b++)); do
            boot="$dir/boot-$b"
            mkdir -p "$boot" && chmod 0777 "$boot"
            printf '%s\n' "capture=$capture" "expected=$expected" "marks=$marks" "boot=$b" "final=$((b > cuts ? 1 : 0))" > "$boot/plan"
            booted=$(date +%s)
            lab_qemu_command power-loss "$boot" busybox -drive "file=$dir/disk.img,format=raw,if=virtio,throttling.bps-write=2097152"
            "${qemu_command[@]}" > "$boot/console.log" 2>&1 < /dev/null &
            pid=$!
            echo "$pid" > "$dir/qemu.pid"
            if [ "$b" -gt "$cuts" ]; then
                wait "$pid" || true
                [ "$(cat "$boot/guest-status" 2>/dev/null)" = 0 ] || { stopped "chain $c, last boot $b"; return 1; }
                echo "chain $c, last boot $b: $(($(date +%s) - booted)) s" >> "$dir/boots.log"
                continue
            fi
            # Cut number i of all the chains': spread over the steps and over 0 to 0.9 s after them
            # (0 to 0.4 s after the commit's and the checkpoint's steps: the disk takes 2 MiB/s, so
            # that their writes reach it for about half a second, as on a slow SD card).
            i=$(((b - 1) * chains + c - 1))
            order=$((1 + i % ${#steps[@]}))
            case "$(step_name "$order")" in
            commit-* | checkpoint) delay="0.$(((i * 7) % 10 / 2))" ;;
            *) delay="0.$(((i * 7) % 10))" ;;
            esac
            echo "$b $order $delay" > "$boot/cut-plan"
            until awk -v k="$order" '$1 >= k { found = 1 } END { exit !found }' "$boot/progress" 2>/dev/null; do
                if ! kill -0 "$pid" 2>/dev/null; then
                    stopped "chain $c, boot $b, before its cut,"
                    return 1
                fi
                sleep 0.05
            done
            sleep "$delay"
            kill -KILL "$pid"
            wait "$pid" 2>/dev/null || true
            landed="$(tail -n 1 "$boot/progress")"
            echo "chain $c, boot $b: $(($(date +%s) - booted)) s" >> "$dir/boots.log"
            echo "cut $((i + 1)) (chain $c, boot $b): planned at step $order ($(step_name "$order")) + ${delay} s; landed after step ${landed}" \
                | tee -a "$dir/cuts.log"
        done
    }
    started=$(date +%s)
    for ((c = 1; c <= chains; c++)); do
        chain "$c" $(((total + chains - c) / chains)) &
        chain_pids+=($!)
    done
    status=0
    for pid in "${chain_pids[@]}"; do wait "$pid" || status=1; done
    echo "power-loss: $total cuts in $((chains)) chains took $(($(date +%s) - started)) s"
    [ "$status" = 0 ] || fail "$(cat "$out"/chain-*/failed 2>/dev/null | head -n 1)"
    ;;
check)
    # --- on the host: what each boot found after the cut before it ---
    expected="$(cat "$out/expected")"
    whole=0 absent=0
    for dir in "$out"/chain-*; do
        c="${dir##*-}"
        boots="$(find "$dir" -maxdepth 1 -name 'boot-*' | wc -l)"
        for ((b = 2; b <= boots; b++)); do
            boot="$dir/boot-$b"
            cut="$(sed -n "/(chain $c, boot $((b - 1)))/p" "$dir/cuts.log")"
            what="${cut%%:*}"
            # A boot cut before it finished reading the store leaves the store to the next one.
            if ! grep -q '^2 checked ' "$boot/progress" 2>/dev/null; then
                echo "$cut: boot $b was cut while it read the store; boot $((b + 1)) reads it"
                continue
            fi
            # The newest store anything was committed to before the cut is the newest on the disk
            # (a store created and cut before its first commit may be gone with its directory entry).
            g="$(cat "$boot/generation" 2>/dev/null || echo 0)"
            newest="$(grep -l -e '^committed|' -e 'records read:' "$dir"/boot-*/app-g*.log "$dir"/boot-*/*import-g*.log 2>/dev/null \
                | sed -n 's|.*/boot-\([0-9]*\)/.*-g\([0-9]*\)\.log$|\1 \2|p' | awk -v b="$b" '$1 < b && $2 > n { n = $2 } END { print n + 0 }')"
            [ "$newest" -le "$g" ] || fail "$what: store-$newest, which held committed rows, is gone from the disk (the newest there is store-$g)"
            if [ "$g" = 0 ]; then
                echo "$cut: no store yet, nothing committed before the cut"
                continue
            fi
            [ "$(cat "$boot/integrity")" = ok ] || fail "$what: integrity_check of store-$g: $(head -n 3 "$boot/integrity" | tr '\n' ' ')"
            stored="$(cat "$boot/count")"
            # Each import run whole: its readings all there, none of another; the capture whole or absent.
            awk -F'|' -v n="$stored" -v what="$what" '
                $2 != $4 { printf "FAIL: %s: import run %s added %s readings, the store holds %s of them\n", what, $1, $2, $4; bad = 1 }
                { sum += $2 }
                END { if (!bad && sum != n) { printf "FAIL: %s: the runs added %d readings, the store holds %d\n", what, sum, n; bad = 1 }
                      exit bad }' "$boot/runs" || exit 1
            [ "$stored" = 0 ] || [ "$stored" = "$expected" ] \
                || fail "$what: store-$g holds $stored readings of the capture, neither none nor all $expected"
            # Every import that printed success before the cut is there.
            printed=0 printed_new=0
            for ((e = 1; e < b; e++)); do
                for log in "$dir/boot-$e/import-g$g.log" "$dir/boot-$e/reimport-g$g.log"; do
                    grep -q "records read:" "$log" 2>/dev/null || continue
                    printed=$((printed + 1))
                    grep -q " $expected new," "$log" && printed_new=1
                done
            done
            runs="$(grep -c . "$boot/runs" || true)"
            [ "$runs" -ge "$printed" ] || fail "$what: $printed imports into store-$g printed success, the store holds $runs import runs"
            [ "$printed_new" = 0 ] || [ "$stored" = "$expected" ] \
                || fail "$what: the import that printed success storing $expected readings is gone: store-$g holds $stored"
            # Every row the app saw committed is there.
            cat "$dir"/boot-*/app-g"$g".log 2>/dev/null | sed -n "s/^committed|\(g$g-b\([0-9]*\)-.*\)$/\2 \1/p" \
                | awk -v b="$b" '$1 < b { print $2 }' | sort > "$boot/app-committed"
            missing="$(sort "$boot/app-rows" | comm -23 "$boot/app-committed" - | head -n 3 | tr '\n' ' ')"
            [ -z "$missing" ] || fail "$what: rows the app saw committed are gone from store-$g: $missing"
            # The next import of the same capture: exactly the capture's readings, nothing twice
            # (each count is whole once the step after it was announced).
            for count in 3:reimport 7:import; do
                grep -q "^${count%%:*} ${count#*:}ed " "$boot/progress" || continue
                [ "$(cat "$boot/${count#*:}-count")" = "$expected" ] \
                    || fail "$what: after the next ${count#*:} (boot $b) the store holds $(cat "$boot/${count#*:}-count") readings, not $expected"
            done
            if [ "$stored" = "$expected" ]; then whole=$((whole + 1)); else absent=$((absent + 1)); fi
            echo "$cut: store-$g $([ "$stored" = 0 ] && echo "without the capture" || echo "with the capture whole"), $runs import runs, $(grep -c . "$boot/app-committed") committed app rows all there; $(grep -c 'recovery complete' "$boot/ext4.log" || true) ext4 journal recovery"
        done
        last="$dir/boot-$boots"
        grep -q -e '^3 reimported ' -e '^7 imported ' "$last/progress" || fail "chain $c: the last boot ran no import to its end"
    done
    cuts="$(cat "$out"/chain-*/cuts.log | wc -l)"
    unfinished="$(for cut in "$out"/chain-*/boot-*/cut-plan; do
        boot="${cut%/cut-plan}"
        if grep -q ' checkpoint ' "$boot/progress" 2> /dev/null && ! grep -q checkpointed "$boot"/app-g*.log; then echo "$boot"; fi
    done | wc -l)"
    echo "power-loss: $unfinished cuts landed during the app's checkpoint (before it returned)"
    echo "power-loss: $cuts cuts; after them the capture's import was whole $whole times and absent $absent times, never partial"
    awk '{ sub(/.*landed after step [0-9]+ /, ""); n[$1]++ } END { for (s in n) printf "  landed after %s: %d\n", s, n[s] }' "$out"/chain-*/cuts.log | sort
    ;;
esac
