#!/usr/bin/env bash
# The FreeStyle Libre demo reader (1a61:3650, no OUT endpoint: the host sends SET_REPORTs) as an
# f_hid gadget, imported live over libusb: live equals replay of its --record capture and of
# tcpdump's usbmon1 capture; a second import adds nothing; tshark reads the interrupt endpoint.
source "$(dirname "$0")/../lib.sh"
case "$1" in
run) usb_live_run "$2" 1a61:3650 Europe/Paris freestyle ;;
check) usb_live_check "$2" Europe/Paris 8 0x03 ;;
esac
