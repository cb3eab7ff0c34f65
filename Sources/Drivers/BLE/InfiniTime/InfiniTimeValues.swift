import Model
import Transport

/// The InfiniTime (PineTime) values glucobridge reads besides Heart Rate.
///
/// Sources: InfiniTimeOrg/InfiniTime doc/MotionService.md and src/components/ble/MotionService.cpp
/// (Motion service `00030000-78fc-48fe-8e23-433b3a1942d0`, step count `00030001-…`, a uint32 LE,
/// read and notify); src/components/ble/CurrentTimeService.cpp and the Bluetooth SIG GATT XML
/// org.bluetooth.characteristic.current_time (https://github.com/oesmith/gatt-xml).
package enum InfiniTimeUUID {
    /// The Motion service.
    package static let motionService = BluetoothUUID("00030000-78fc-48fe-8e23-433b3a1942d0")!
    /// Step count: the steps since the watch's midnight (or since it restarted), uint32 LE.
    package static let stepCount = BluetoothUUID("00030001-78fc-48fe-8e23-433b3a1942d0")!
    /// Current Time Service 0x1805.
    package static let currentTimeService = BluetoothUUID(0x1805)
    /// Current Time 0x2A2B.
    package static let currentTime = BluetoothUUID(0x2A2B)
}

/// The Motion service's step count: exactly four bytes, little-endian.
public enum InfiniTimeStepCount {
    public static func decode(_ value: [UInt8]) throws(BLEValueError) -> UInt32 {
        var reader = GATTValueReader(value, .infiniTimeStepCount)
        let steps = try reader.u32("step count")
        try reader.expectEnd(allowed: [4])
        return steps
    }
}

/// Current Time 0x2A2B: Exact Time 256 (Day Date Time: a GATT Date Time and the day of the week
/// 0 = unknown, 1 = Monday … 7 = Sunday; then fractions of a second in 1/256 s), then the
/// adjust reason bits (0–3 used). The watch's own wall clock, without a zone.
public struct CurrentTime: Sendable, Equatable {
    package var dateTime: GATTDateTime
    package var dayOfWeek: Int
    package var fractions256: Int
    package var adjustReason: UInt8

    package init(dateTime: GATTDateTime, dayOfWeek: Int, fractions256: Int = 0, adjustReason: UInt8 = 0) {
        self.dateTime = dateTime
        self.dayOfWeek = dayOfWeek
        self.fractions256 = fractions256
        self.adjustReason = adjustReason
    }

    /// The ten bytes as the watch sends them.
    public var bytes: [UInt8] { dateTime.bytes + [UInt8(dayOfWeek), UInt8(fractions256), adjustReason] }

    /// The wall clock as seconds since 1970-01-01T00:00 read without a zone (with the fraction).
    public var wallClockSeconds: Double? {
        dateTime.wallClockSeconds.map { Double($0) + Double(fractions256) / 256 }
    }

    /// Decodes the read value; a date with an unknown year, month or day is refused (the watch
    /// has not been set), as is a weekday that is not that date's.
    public static func decode(_ value: [UInt8]) throws(BLEValueError) -> CurrentTime {
        var reader = GATTValueReader(value, .currentTime)
        let dateTime = try reader.dateTime("date time")
        let weekdayAt = reader.offset
        let dayOfWeek = Int(try reader.u8("day of week"))
        let fractions = Int(try reader.u8("fractions256"))
        let reasonAt = reader.offset
        let reason = try reader.u8("adjust reason")
        try reader.expectEnd(allowed: [10])
        guard let seconds = dateTime.wallClockSeconds else {
            throw .invalidField(characteristic: .currentTime, field: "date time", offset: 0, reason: "is \(dateTime): the watch's date is unknown")
        }
        guard dayOfWeek <= 7 else {
            throw .invalidField(characteristic: .currentTime, field: "day of week", offset: weekdayAt, reason: "is \(dayOfWeek) (allowed 0–7)")
        }
        // 1970-01-01 was a Thursday (4).
        let weekday = Int((CivilDate.floorDiv(seconds, 86_400) + 3) % 7 + 7) % 7 + 1
        guard dayOfWeek == 0 || dayOfWeek == weekday else {
            throw .invalidField(
                characteristic: .currentTime, field: "day of week", offset: weekdayAt,
                reason: "is \(dayOfWeek) but \(dateTime) is day \(weekday) (1 = Monday)")
        }
        guard reason & 0xF0 == 0 else {
            throw .reservedFlags(characteristic: .currentTime, offset: reasonAt, flags: UInt32(reason), reservedMask: 0xF0)
        }
        return CurrentTime(dateTime: dateTime, dayOfWeek: dayOfWeek, fractions256: fractions, adjustReason: reason)
    }
}
