#!/usr/bin/env bash
# A FreeStyle Libre 2 reader (1a61:3950) whose session is encrypted (Speck handshake and MACs),
# as an f_hid gadget, imported live with the keys glucobridge finds: live equals the replay of its
# --record capture (a conversation with the nonce glucobridge chose) and of tcpdump's usbmon1
# capture (decoded passively, the session keys derived from the handshake's nonces).
source "$(dirname "$0")/../lib.sh"
case "$1" in
run)
    write_libre2_keys "$work/freestyle-keys"
    export GLUCOBRIDGE_FREESTYLE_KEYS="$work/freestyle-keys"
    usb_live_run "$2" 1a61:3950 Europe/Berlin libre2
    ;;
check) usb_live_check "$2" Europe/Berlin 8 0x03 ;;
esac
