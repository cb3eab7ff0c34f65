#!/usr/bin/env bash
# An Accu-Chek Guide whose answer to GET is a malformed APDU (an attribute list longer than the
# APDU): the import fails naming the meter, the APDU and the byte, and stores nothing.
source "$(dirname "$0")/../lib.sh"
case "$1" in
run) usb_refused_run "$2" 173a:21d5 accuchek --malformed ;;
check)
    usb_refused_check "$2" 173a:21d5 "malformed presentation APDU \\(0xE700\\) from 173a:21d5 at byte 16" "the APDU and the byte"
    ;;
esac
