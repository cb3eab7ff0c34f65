#!/usr/bin/env bash
# A FreeStyle Libre 2 reader (1a61:3950) whose session is encrypted (Speck handshake and MACs),
# as an f_hid gadget, imported live with the keys glucobridge finds: live equals the replay of its
# --record capture (a conversation with the nonce glucobridge chose) and of tcpdump's usbmon1
# capture (decoded passively, the session keys derived from the handshake's nonces); and
# freestyle-hid, an independent host, logs in to the same gadget over hidraw and reads its
# records, and tcpdump's capture of its session replays to the same readings.
source "$(dirname "$0")/../lib.sh"
case "$1" in
run)
    libre_live_run "$2" 1a61:3950 libre2
    # freestyle-hid, a host no one here wrote, logs in to the same reader through the kernel's
    # hidraw node and reads its records, in a session of its own (the reader plugged in again).
    unplug
    await 10 "the reader to leave" usb_device_absent 1a61:3950
    plug
    await 30 "the reader's hidraw node" hidraw_node 1a61:3950
    start_usbmon_capture "$2/freestyle-hid.pcap"
    "$(python_with freestyle_hid)" - "$(hidraw_node 1a61:3950)" "$2/freestyle-hid.json" > "$2/freestyle-hid.log" 2>&1 <<'PYTHON' \
        || fail "freestyle-hid could not read the reader: $(tail -n 1 "$2/freestyle-hid.log")"
import json, pathlib, sys
from freestyle_hid import _session
session = _session.Session(None, pathlib.Path(sys.argv[1]), 0x60, 0x60, encrypted=True)
session.connect()
records = {
    "serial": session.send_text_command(b"$sn?").strip(),
    "history": [row for row in session.query_multirecord(b"$history?") if row],
    "arresult": [row for row in session.query_multirecord(b"$arresult?") if row],
}
json.dump(records, open(sys.argv[2], "w"))
PYTHON
    stop_capture
    ;;
check)
    usb_live_check "$2" Europe/Berlin 8 0x03
    python3 - "$2/freestyle-hid.json" <<'PYTHON' || fail "freestyle-hid did not read the reader's records: $(cat "$2/freestyle-hid.json")"
import json, sys
records = json.load(open(sys.argv[1]))
assert records["serial"] == "MAGA987-J0123", records["serial"]
assert len(records["history"]) == 6 and records["history"][0][0] == "412", records["history"]
assert len(records["arresult"]) == 6 and records["arresult"][0][0] == "1205", records["arresult"]
PYTHON
    # tcpdump's capture of freestyle-hid's session, decoded passively by glucobridge.
    same_as_replay glucose_values "$2/freestyle-hid.pcap" "$2/live.sqlite" "$2/replay-freestyle-hid.sqlite" Europe/Berlin \
        "readings of the live import and of a replay of tcpdump's capture of freestyle-hid's session"
    ;;
esac
