#!/usr/bin/env bash
# A Dexcom receiver that makes the fault 'stall' in the middle of a download (after 12 answers):
# the import fails naming the device and what happened, stores nothing, and the import after the
# reader is plugged in again is complete, with nothing duplicated.
source "$(dirname "$0")/../lib.sh"
case "$1" in
run) usb_fault_run "$2" stall 12 ;;
check) usb_fault_check "$2" 'stall' ;;
esac
