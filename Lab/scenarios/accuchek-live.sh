#!/usr/bin/env bash
# An Accu-Chek Guide (173a:21d5, PHDC class 0x0F with bulk IN and OUT, IEEE 11073-20601) holding
# nine results (six around the consensus edges, a HI, a LO, a control-solution test) as a
# FunctionFS gadget, imported live: live equals replay of its --record capture and of tcpdump's
# usbmon1 capture; a second import adds nothing; the control result is not stored.
source "$(dirname "$0")/../lib.sh"
case "$1" in
run) usb_live_run "$2" 173a:21d5 UTC accuchek ;;
check)
    usb_live_check "$2" UTC 8 0x02
    rows="$(sqlite3 "$2/live.sqlite" "SELECT group_concat(mgdl || ':' || tag, ' ') FROM (SELECT mgdl, tag FROM glucose ORDER BY time)")"
    [ "$rows" = "53.0:hypo-l2 54.0:hypo-l1 69.0:hypo-l1 70.0:in-range 181.0:hyper-l1 251.0:hyper-l2 600.0:hyper-l2 20.0:hypo-l2" ] \
        || fail "the meter's readings are $rows"
    grep -q "control-solution" "$2/import.log" || fail "the import report does not count the control-solution result"
    ;;
esac
