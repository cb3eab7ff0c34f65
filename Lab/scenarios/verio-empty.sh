#!/usr/bin/env bash
# A OneTouch Verio Reflect with an empty memory imported live through its sg node: the import
# succeeds, stores nothing and says the memory is empty; replays of its --record and usbmon
# captures say the same.
source "$(dirname "$0")/../lib.sh"
case "$1" in
run) usb_live_run "$2" 2766:000c UTC verio --results 0 ;;
check) usb_empty_check "$2" ;;
esac
