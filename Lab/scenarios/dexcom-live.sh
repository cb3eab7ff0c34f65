#!/usr/bin/env bash
# A Dexcom G4 receiver holding 90 generated Days as a FunctionFS gadget on dummy_hcd, imported
# live over libusb: live equals replay of its --record capture and of tcpdump's usbmon1 capture;
# a second import adds nothing; tshark reads the bulk endpoints (bmAttributes 0x02).
source "$(dirname "$0")/../lib.sh"
case "$1" in
run) usb_live_run "$2" 22a3:0047 Europe/Berlin dexcom --days 90 ;;
check) usb_live_check "$2" Europe/Berlin 25892 0x02 ;;
esac
