#!/usr/bin/env bash
# An Accu-Chek Guide in mmol/L with a full memory (720 results, two hours apart) imported live:
# every result stored once, in mmol/L as the meter sent it; live equals the replays of its
# --record and usbmon captures; a second import adds nothing.
source "$(dirname "$0")/../lib.sh"
case "$1" in
run) usb_live_run "$2" 173a:21d5 UTC accuchek --results 720 --mmol ;;
check)
    usb_live_check "$2" UTC 720 0x02
    units="$(sqlite3 "$2/live.sqlite" "SELECT group_concat(DISTINCT unit) FROM glucose")"
    [ "$units" = "mmol/L" ] || fail "the meter's readings are stored in $units, not mmol/L"
    ;;
esac
