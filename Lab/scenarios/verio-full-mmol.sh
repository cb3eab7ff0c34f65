#!/usr/bin/env bash
# A OneTouch Verio Reflect that displays mmol/L with a full memory (500 records, two hours apart)
# imported live through its sg node: every record stored once in mg/dL, as the meter sends it
# whatever it displays, and the report says the meter displays mmol/L; live equals the replays of
# its --record and usbmon captures; a second import adds nothing.
source "$(dirname "$0")/../lib.sh"
case "$1" in
run) usb_live_run "$2" 2766:000c UTC verio --results 500 --mmol ;;
check)
    usb_live_check "$2" UTC 500 0x02
    units="$(sqlite3 "$2/live.sqlite" "SELECT group_concat(DISTINCT unit) FROM glucose")"
    [ "$units" = "mg/dL" ] || fail "the meter's readings are stored in $units, not mg/dL as it sent them"
    grep -q "displays mmol/L" "$2/import.log" || fail "the import report does not say the meter displays mmol/L"
    ;;
esac
