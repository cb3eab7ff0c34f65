import Foundation

/// Continuous Glucose Monitoring service 0x181F: CGM Measurement 0x2AA7 (notify), CGM Feature
/// 0x2AA8, CGM Status 0x2AA9, Session Start Time 0x2AAA, Session Run Time 0x2AAB (read); its
/// Record Access Control Point is in RecordAccessControlPoint.swift.
///
/// Sources: Bluetooth SIG GATT XML cgm_measurement, cgm_feature, cgm_status,
/// cgm_session_start_time, cgm_session_run_time, time_zone, dst_offset (oesmith/gatt-xml);
/// NordicSemiconductor Android-BLE-Common-Library ContinuousGlucoseMeasurementDataCallback (record
/// size rule); Continuous Glucose Monitoring Service 1.0.2.
///
/// E2E-CRC: when the CGM Feature sets bit 12 every CGMS value carries a CRC (see E2ECRC.swift). The
/// decoders take `e2eCRC: Bool?` — true: the CRC must be there and match; false: it must not be
/// there; nil (Feature not read): the length decides, and a CRC that is there is checked.

/// One CGM Measurement record. A notification may carry several back to back.
///
/// Record: size u8 (whole record incl. size and CRC), flags u8 (bit 0 trend, bit 1 quality,
/// bits 2–4 reserved, bits 5/6/7 one annunciation octet each), glucose SFLOAT mg/dL, time offset
/// u16 minutes since the session start, the annunciation octets in flag-bit order 5→6→7, trend
/// SFLOAT (mg/dL)/min, quality SFLOAT %, E2E-CRC u16.
public struct CGMMeasurement: Sendable, Equatable {
    package var size: UInt8
    package var flags: UInt8
    /// mg/dL; NaN, NRes, ±INF and reserved are not readings.
    package var glucose: MedicalFloat
    /// Minutes since the Session Start Time.
    package var timeOffsetMinutes: UInt16
    /// The annunciation octets as sent, in flag-bit order. Which 8 status bits each holds is an
    /// open question (the gatt-xml bit list does not say, and implementations differ), so they stay raw with the flag bit that announced them.
    package var annunciation: [CGMAnnunciationOctet]
    /// (mg/dL)/min, when flag bit 0 is set.
    package var trend: MedicalFloat?
    /// %, when flag bit 1 is set.
    package var quality: MedicalFloat?
    package var crc: E2ECRCCheck

    package init(
        size: UInt8, flags: UInt8, glucose: MedicalFloat, timeOffsetMinutes: UInt16,
        annunciation: [CGMAnnunciationOctet] = [], trend: MedicalFloat? = nil, quality: MedicalFloat? = nil,
        crc: E2ECRCCheck
    ) {
        self.size = size
        self.flags = flags
        self.glucose = glucose
        self.timeOffsetMinutes = timeOffsetMinutes
        self.annunciation = annunciation
        self.trend = trend
        self.quality = quality
        self.crc = crc
    }

    /// Every record of one notification; the first bad record fails the whole value.
    public static func records(in value: [UInt8], e2eCRC: Bool?) throws(BLEValueError) -> [CGMMeasurement] {
        var records: [CGMMeasurement] = []
        for result in recordResults(in: value, e2eCRC: e2eCRC) {
            records.append(try result.get())
        }
        return records
    }

    /// Each record of one notification on its own, so one bad CRC does not discard its
    /// neighbours. The size byte locates the next record; a size that cannot be followed (below 6,
    /// or past the end of the value) ends the list with that failure.
    public static func recordResults(in value: [UInt8], e2eCRC: Bool?) -> [Result<CGMMeasurement, BLEValueError>] {
        located(in: value, e2eCRC: e2eCRC).map(\.result)
    }

    /// ``recordResults(in:e2eCRC:)`` with the time offset each record carries (bytes 4 and 5 of
    /// the record, read whether or not the record decodes), so that a bad record can be named;
    /// nil for a size that could not be followed.
    package static func located(in value: [UInt8], e2eCRC: Bool?)
        -> [(timeOffsetMinutes: UInt16?, result: Result<CGMMeasurement, BLEValueError>)]
    {
        guard !value.isEmpty else {
            return [(nil, .failure(.shortPayload(characteristic: .cgmMeasurement, field: "record size", offset: 0, needed: 1, available: 0)))]
        }
        var results: [(timeOffsetMinutes: UInt16?, result: Result<CGMMeasurement, BLEValueError>)] = []
        var start = 0
        while start < value.count {
            let size = Int(value[start])
            guard size >= 6 else {
                results.append(
                    (
                        nil,
                        .failure(
                            .invalidField(
                                characteristic: .cgmMeasurement, field: "record size", offset: start,
                                reason: "is \(size) (a record holds at least 6 bytes)"))
                    ))
                break
            }
            guard start + size <= value.count else {
                results.append(
                    (
                        nil,
                        .failure(
                            .shortPayload(
                                characteristic: .cgmMeasurement, field: "record of \(size) bytes", offset: start, needed: size,
                                available: value.count - start))
                    ))
                break
            }
            let timeOffset = UInt16(value[start + 4]) | UInt16(value[start + 5]) << 8
            results.append(
                (
                    timeOffset,
                    Result(catching: { () throws(BLEValueError) -> CGMMeasurement in
                        try decodeRecord(value, from: start, size: size, e2eCRC: e2eCRC)
                    })
                ))
            start += size
        }
        return results
    }

    private static func decodeRecord(_ value: [UInt8], from start: Int, size: Int, e2eCRC: Bool?) throws(BLEValueError)
        -> CGMMeasurement
    {
        var reader = GATTValueReader(value, .cgmMeasurement, from: start, end: start + size)
        _ = try reader.u8("size")
        let flagsAt = reader.offset
        let flags = try reader.u8("flags")
        try reader.rejectReserved(UInt32(flags), mask: 0x1C, at: flagsAt)
        let octetBits = [5, 6, 7].filter { flags & (1 << $0) != 0 }
        let bare = 6 + octetBits.count + (flags & 0x01 != 0 ? 2 : 0) + (flags & 0x02 != 0 ? 2 : 0)
        let hasCRC = try reader.crcPresent(supported: e2eCRC, bareLength: bare)
        let glucose = try reader.sfloat("glucose concentration")
        let offset = try reader.u16("time offset")
        var octets: [CGMAnnunciationOctet] = []
        for bit in octetBits {
            octets.append(CGMAnnunciationOctet(flagBit: UInt8(bit), raw: try reader.u8("annunciation octet (flag bit \(bit))")))
        }
        let trend = flags & 0x01 != 0 ? try reader.sfloat("trend") : nil
        let quality = flags & 0x02 != 0 ? try reader.sfloat("quality") : nil
        let crc = try reader.e2eCRC(present: hasCRC)
        return CGMMeasurement(
            size: UInt8(size), flags: flags, glucose: glucose, timeOffsetMinutes: offset, annunciation: octets,
            trend: trend, quality: quality, crc: crc)
    }
}

/// One CGM annunciation octet, raw, with the flag bit that announced it (5 "Warning-Octet",
/// 6 "Cal/Temp-Octet", 7 "Status-Octet" in the XML's flag names).
package struct CGMAnnunciationOctet: Sendable, Equatable, Hashable {
    package var flagBit: UInt8
    package var raw: UInt8

    package init(flagBit: UInt8, raw: UInt8) {
        self.flagBit = flagBit
        self.raw = raw
    }
}

/// CGM Feature 0x2AA8: features u24, type/sample-location byte, E2E-CRC u16 (always present; 0xFFFF
/// when the sensor does not support E2E-CRC, in which case it is not checked).
public struct CGMFeature: Sendable, Equatable {
    package struct Features: OptionSet, Sendable, Hashable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        package static let calibration = Features(rawValue: 1 << 0)
        package static let patientHighLowAlerts = Features(rawValue: 1 << 1)
        package static let hypoAlerts = Features(rawValue: 1 << 2)
        package static let hyperAlerts = Features(rawValue: 1 << 3)
        package static let rateOfIncreaseDecreaseAlerts = Features(rawValue: 1 << 4)
        package static let deviceSpecificAlert = Features(rawValue: 1 << 5)
        package static let sensorMalfunctionDetection = Features(rawValue: 1 << 6)
        package static let sensorTemperatureHighLowDetection = Features(rawValue: 1 << 7)
        package static let sensorResultHighLowDetection = Features(rawValue: 1 << 8)
        package static let lowBatteryDetection = Features(rawValue: 1 << 9)
        package static let sensorTypeErrorDetection = Features(rawValue: 1 << 10)
        package static let generalDeviceFault = Features(rawValue: 1 << 11)
        package static let e2eCRC = Features(rawValue: 1 << 12)
        package static let multipleBond = Features(rawValue: 1 << 13)
        package static let multipleSessions = Features(rawValue: 1 << 14)
        package static let trendInformation = Features(rawValue: 1 << 15)
        package static let quality = Features(rawValue: 1 << 16)
    }

    package var features: Features
    package var sample: GlucoseSample
    /// The CRC field as sent; `crc` says whether it was checked.
    package var crcField: UInt16
    package var crc: E2ECRCCheck

    package var supportsE2ECRC: Bool { features.contains(.e2eCRC) }

    package init(features: Features, sample: GlucoseSample, crcField: UInt16, crc: E2ECRCCheck) {
        self.features = features
        self.sample = sample
        self.crcField = crcField
        self.crc = crc
    }

    public static func decode(_ value: [UInt8]) throws(BLEValueError) -> CGMFeature {
        var reader = GATTValueReader(value, .cgmFeature)
        let features = Features(rawValue: try reader.u24("features"))
        let sample = GlucoseSample(byte: try reader.u8("type and sample location"))
        guard reader.remaining == 2 else {
            throw .unexpectedLength(characteristic: .cgmFeature, offset: reader.offset, expected: [6], found: value.count)
        }
        let crcAt = reader.offset
        let crc: E2ECRCCheck
        if features.contains(.e2eCRC) {
            crc = try reader.e2eCRC(present: true)
        } else {
            _ = try reader.u16("E2E-CRC")
            crc = .absent
        }
        return CGMFeature(features: features, sample: sample, crcField: value.u16le(at: crcAt), crc: crc)
    }
}

/// CGM Status 0x2AA9: time offset u16 (minutes), status u24 (the annunciation bits, all three
/// octets, kept raw), E2E-CRC when supported.
public struct CGMStatus: Sendable, Equatable {
    package var timeOffsetMinutes: UInt16
    /// The three status octets, least significant first, as one number.
    package var status: UInt32
    package var crc: E2ECRCCheck

    package init(timeOffsetMinutes: UInt16, status: UInt32, crc: E2ECRCCheck) {
        self.timeOffsetMinutes = timeOffsetMinutes
        self.status = status
        self.crc = crc
    }

    public static func decode(_ value: [UInt8], e2eCRC: Bool?) throws(BLEValueError) -> CGMStatus {
        var reader = GATTValueReader(value, .cgmStatus)
        let hasCRC = try reader.crcPresent(supported: e2eCRC, bareLength: 5)
        let offset = try reader.u16("time offset")
        let status = try reader.u24("status")
        return CGMStatus(timeOffsetMinutes: offset, status: status, crc: try reader.e2eCRC(present: hasCRC))
    }
}

/// Daylight-saving adjustment of a local time (GATT DST Offset, one byte).
package enum DSTOffset: UInt8, Sendable, Equatable, CaseIterable {
    case standardTime = 0
    case halfHourDaylightTime = 2
    case daylightTime = 4
    case doubleDaylightTime = 8
    case unknown = 255

    /// The adjustment in seconds, nil when unknown.
    package var seconds: Int64? {
        switch self {
        case .standardTime: 0
        case .halfHourDaylightTime: 1800
        case .daylightTime: 3600
        case .doubleDaylightTime: 7200
        case .unknown: nil
        }
    }
}

/// CGM Session Start Time 0x2AAA: date-time (7 bytes, local), time zone s8 (15-minute steps from
/// UTC, −48…+56, −128 unknown), DST offset u8, E2E-CRC when supported.
public struct CGMSessionStartTime: Sendable, Equatable {
    package var localTime: GATTDateTime
    /// Quarter hours east of UTC, nil when the sensor reports −128 (unknown).
    package var timeZoneQuarterHours: Int8?
    package var dstOffset: DSTOffset
    package var crc: E2ECRCCheck

    package init(localTime: GATTDateTime, timeZoneQuarterHours: Int8?, dstOffset: DSTOffset, crc: E2ECRCCheck = .absent) {
        self.localTime = localTime
        self.timeZoneQuarterHours = timeZoneQuarterHours
        self.dstOffset = dstOffset
        self.crc = crc
    }

    public static func decode(_ value: [UInt8], e2eCRC: Bool?) throws(BLEValueError) -> CGMSessionStartTime {
        var reader = GATTValueReader(value, .cgmSessionStartTime)
        let hasCRC = try reader.crcPresent(supported: e2eCRC, bareLength: 9)
        let local = try reader.dateTime("session start time")
        let zoneAt = reader.offset
        let zone = Int8(bitPattern: try reader.u8("time zone"))
        guard zone == -128 || (-48...56).contains(zone) else {
            throw .invalidField(
                characteristic: .cgmSessionStartTime, field: "time zone", offset: zoneAt,
                reason: "is \(zone) quarter hours (allowed −48…+56, or −128 for unknown)")
        }
        let dstAt = reader.offset
        let dstRaw = try reader.u8("DST offset")
        guard let dst = DSTOffset(rawValue: dstRaw) else {
            throw .invalidField(
                characteristic: .cgmSessionStartTime, field: "DST offset", offset: dstAt,
                reason: "is \(dstRaw) (allowed 0, 2, 4, 8, or 255 for unknown)")
        }
        let crc = try reader.e2eCRC(present: hasCRC)
        return CGMSessionStartTime(
            localTime: local, timeZoneQuarterHours: zone == -128 ? nil : zone, dstOffset: dst, crc: crc)
    }

    /// The value to write to the sensor, with an E2E-CRC when `withCRC`.
    package func encoded(withCRC: Bool) -> [UInt8] {
        let bare = localTime.bytes + [UInt8(bitPattern: timeZoneQuarterHours ?? -128), dstOffset.rawValue]
        return withCRC ? E2ECRC.appending(to: bare) : bare
    }

    /// The session start in UTC: local time − zone − DST. Nil when the date, zone or DST is unknown.
    package var utcStart: Date? {
        guard let wall = localTime.wallClockSeconds, let zone = timeZoneQuarterHours, let dst = dstOffset.seconds else {
            return nil
        }
        return Date(timeIntervalSince1970: TimeInterval(wall - Int64(zone) * 900 - dst))
    }

    /// The UTC time of a measurement `timeOffsetMinutes` after this session start, nil when the
    /// start is not fully known.
    package func time(ofOffsetMinutes timeOffsetMinutes: UInt16) -> Date? {
        utcStart.map { CGMSessionStartTime.time(sessionStart: $0, offsetMinutes: timeOffsetMinutes) }
    }

    /// A measurement's time: the session start plus its time offset in minutes (pure).
    package static func time(sessionStart: Date, offsetMinutes: UInt16) -> Date {
        sessionStart.addingTimeInterval(TimeInterval(offsetMinutes) * 60)
    }
}

/// CGM Session Run Time 0x2AAB: the expected session length in hours (u16), E2E-CRC when supported.
public struct CGMSessionRunTime: Sendable, Equatable {
    package var hours: UInt16
    package var crc: E2ECRCCheck

    package init(hours: UInt16, crc: E2ECRCCheck) {
        self.hours = hours
        self.crc = crc
    }

    public static func decode(_ value: [UInt8], e2eCRC: Bool?) throws(BLEValueError) -> CGMSessionRunTime {
        var reader = GATTValueReader(value, .cgmSessionRunTime)
        let hasCRC = try reader.crcPresent(supported: e2eCRC, bareLength: 2)
        let hours = try reader.u16("session run time")
        return CGMSessionRunTime(hours: hours, crc: try reader.e2eCRC(present: hasCRC))
    }
}
