#!/usr/bin/env bash
# An Accu-Chek Guide with an empty memory imported live: the import succeeds, stores nothing and
# says the memory is empty; replays of its --record and usbmon captures say the same.
source "$(dirname "$0")/../lib.sh"
case "$1" in
run) usb_live_run "$2" 173a:21d5 UTC accuchek --results 0 ;;
check) usb_empty_check "$2" ;;
esac
