#!/usr/bin/env bash
# A OneTouch Verio Reflect whose reply to READ RECORD 0 carries a wrong CRC-16/CCITT-FALSE: the
# import fails naming the meter, the command, the block and both CRCs, and stores nothing.
source "$(dirname "$0")/../lib.sh"
case "$1" in
run) usb_refused_run "$2" 2766:000c verio --malformed ;;
check)
    usb_refused_check "$2" 2766:000c \
        "reply to READ RECORD 0 from 2766:000c \\(block 3\\) fails its CRC-16/CCITT-FALSE: it carries 0x[0-9A-F]{4}, its bytes give 0x[0-9A-F]{4}" \
        "the reply and the CRCs"
    ;;
esac
