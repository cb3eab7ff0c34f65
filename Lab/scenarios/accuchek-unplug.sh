#!/usr/bin/env bash
# An Accu-Chek Guide (173a:21d5) unplugged in the middle of its segment transfer (after its answer
# to MDC_ACT_SEG_TRIG_XFER with the first segment-data event, and the second event): the import
# fails naming the meter and what happened, stores nothing; plugged in again, the next import
# stores all eight readings, and the one after it adds nothing. accuchek-silence.sh runs this with
# ACCUCHEK_FAULT=silence: the meter stops answering there instead.
source "$(dirname "$0")/../lib.sh"
fault="${ACCUCHEK_FAULT:-unplug}"
case "$fault" in
unplug) said="disconnected|unplugged" ;;
silence) said="timed out|stopped answering" ;;
esac
case "$1" in
run) usb_fault_run "$2" "$fault" 6 173a:21d5 accuchek ;;
check) usb_fault_check "$2" "$said" 173a:21d5 8 ;;
esac
