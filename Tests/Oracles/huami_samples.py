"""Decodes a Huami band's per-minute activity samples with amazfit-pyclient (PyPI, MIT), the
independent decoder HuamiOracleTests compares glucobridge with.

Input (a JSON file named by the first argument): a list of fetches, each
{"start": the 8 bytes of the band's start time in hex, "data": the fetch's bytes without packet
counters in hex}. Output (stdout): a JSON list of samples, each with its UTC time and the
fields amazfit-pyclient decodes.
"""
import io
import json
import sys
from datetime import timezone

from amazfit_pyclient.fetch.fetch_activity import FetchActivity
from amazfit_pyclient.fetch.utils import TimeUtils


def decode(fetch):
    # Its decoder without a Bluetooth client: the buffer and start time a fetch leaves.
    reader = FetchActivity.__new__(FetchActivity)
    reader.buffer = io.BytesIO(bytes.fromhex(fetch["data"]))
    reader.start_timestamp = TimeUtils.bytes_time(bytes.fromhex(fetch["start"]))
    for sample in reader.get_samples():
        yield {
            "time": sample.timestamp.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "kind": sample.kind,
            "intensity": sample.intensity,
            "steps": sample.steps,
            "heart_rate": sample.heart_rate,
            "extra": [sample.retain, sample.sleep, sample.deep_sleep, sample.rem_sleep],
        }


with open(sys.argv[1]) as source:
    fetches = json.load(source)
print(json.dumps([sample for fetch in fetches for sample in decode(fetch)]))
