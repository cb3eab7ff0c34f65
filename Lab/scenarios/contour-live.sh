#!/usr/bin/env bash
# A Contour meter (1a79:6002, HID with interrupt IN and OUT) holding six results at the consensus
# edges as an f_hid gadget, imported live: live equals replay of its --record capture and of
# tcpdump's usbmon1 capture; a second import adds nothing; the tags are the consensus' own.
source "$(dirname "$0")/../lib.sh"
case "$1" in
run) usb_live_run "$2" 1a79:6002 UTC contour ;;
check)
    usb_live_check "$2" UTC 6 0x03
    tags="$(sqlite3 "$2/live.sqlite" "SELECT group_concat(mgdl || ':' || tag, ' ') FROM (SELECT mgdl, tag FROM glucose ORDER BY time)")"
    [ "$tags" = "53.0:hypo-l2 54.0:hypo-l1 69.0:hypo-l1 70.0:in-range 181.0:hyper-l1 251.0:hyper-l2" ] || fail "the meter's readings are tagged $tags"
    ;;
esac
