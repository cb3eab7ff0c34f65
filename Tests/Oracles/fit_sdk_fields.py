"""Prints, as JSON, the FIT messages and fields glucobridge uses, as Garmin's garmin-fit-sdk
(PyPI) decodes them: scales and offsets applied, subfields and components expanded, times as
FIT seconds, enumerations as numbers. One entry per file given, in file order:
{"file": PATH, "messages": [[GLOBAL_NUMBER, {FIELD: VALUE}], ...]}.
Run by Tests/EndToEnd/FIT/FITOracleTests.swift."""
import json
import sys

from garmin_fit_sdk import Decoder, Stream

# Global message number: the fields glucobridge reads (FITProfile.swift).
USED = {
    0: ["type", "manufacturer", "product", "serial_number", "time_created"],
    18: ["timestamp", "start_time", "sport", "total_elapsed_time", "total_timer_time", "total_distance",
         "total_calories", "avg_heart_rate", "max_heart_rate", "message_index"],
    19: ["timestamp", "start_time", "sport", "total_elapsed_time", "total_timer_time", "total_distance",
         "total_calories", "avg_heart_rate", "max_heart_rate", "message_index"],
    # speed: enhanced_speed, into which the SDK also expands a record's `speed` (its component).
    20: ["timestamp", "heart_rate", "cadence", "fractional_cadence", "distance", "enhanced_speed"],
    34: ["timestamp", "local_timestamp"],
    55: ["timestamp", "timestamp_16", "activity_type", "intensity", "cycles", "steps", "active_calories", "heart_rate",
         "duration_min"],
    103: ["timestamp", "local_timestamp"],
}


def plain(value):
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, (int, float, str)) or value is None:
        return value
    return str(value)


def decode(path):
    messages = []

    def listener(number, message):
        if number in USED:
            messages.append([number, {k: plain(message[k]) for k in USED[number] if k in message}])

    decoder = Decoder(Stream.from_file(path))
    decoder.read(convert_datetimes_to_dates=False, convert_types_to_strings=False, merge_heart_rates=False,
                 enable_crc_check=False, mesg_listener=listener)
    return {"file": path, "messages": messages}


json.dump([decode(path) for path in sys.argv[1:]], sys.stdout)
