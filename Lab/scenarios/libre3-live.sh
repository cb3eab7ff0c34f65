#!/usr/bin/env bash
# A FreeStyle Libre 3 reader (1a61:3960) whose session is encrypted, as an f_hid gadget holding the
# demo records in the Libre 3's own row layout (history rows without field 12, result rows without
# error bits or comments), imported live with the keys glucobridge finds: every value of the rows
# read from the Libre 3's columns, and live equals the replays of its --record capture (by
# conversation) and of tcpdump's usbmon1 capture (decoded passively: the product ID names the
# layout).
source "$(dirname "$0")/../lib.sh"
case "$1" in
run)
    libre_live_run "$2" 1a61:3960 libre3
    ;;
check)
    usb_live_check "$2" Europe/Berlin 9 0x03
    # Read as a Libre 2's rows these would be other numbers (the reader's age, 7246, as error bits).
    values="$(sqlite3 "$2/live.sqlite" "SELECT group_concat(device_record_key || '=' || mgdl, ' ') FROM (SELECT device_record_key, mgdl FROM glucose ORDER BY time, device_record_key)")"
    [ "$values" = "arresult:1200=500.0 arresult:1202=96.0 history:407=64.0 history:408=38.0 history:409=131.0 arresult:1204=126.0 history:411=118.0 arresult:1205=115.0 history:412=112.0" ] \
        || fail "the Libre 3's readings are stored as $values"
    grep -q "FreeStyle Libre 3" "$2/import.log" || fail "the live import does not name the reader a FreeStyle Libre 3: $(head -n 3 "$2/import.log")"
    ;;
esac
