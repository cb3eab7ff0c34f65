/// Heart Rate service 0x180D: Heart Rate Measurement 0x2A37 (notify), Body Sensor Location
/// 0x2A38 (read), Heart Rate Control Point 0x2A39 (write).
///
/// Sources: Bluetooth SIG GATT XML org.bluetooth.characteristic.heart_rate_measurement,
/// body_sensor_location, heart_rate_control_point (https://github.com/oesmith/gatt-xml); Heart
/// Rate Service 1.0, §3.1–§3.3.

/// One Heart Rate Measurement notification.
///
/// Flags u8: bit 0 value format (0 = u8, 1 = u16 bpm); bits 1–2 sensor contact status; bit 3
/// energy expended (u16, kJ) present; bit 4 RR-intervals present; bits 5–7 reserved. Then the
/// heart rate, the energy, and as many u16 RR-intervals (1/1024 s, oldest first) as remain.
public struct HeartRateMeasurement: Sendable, Equatable {
    /// Sensor contact, from flag bits 1–2.
    package enum SensorContact: Sendable, Equatable {
        /// Bits 0 or 1: the sensor does not report contact.
        case notSupported
        /// Bits 2: supported, but the sensor is not touching skin.
        case notDetected
        /// Bits 3: in contact.
        case detected
    }

    package var beatsPerMinute: Int
    /// True when the heart rate was sent as u16 (flag bit 0).
    package var isUInt16: Bool
    /// Flag bits 1–2 as sent (0…3).
    package var contactBits: UInt8
    /// Cumulative energy expended since the last reset, kJ (the XML's flag text says kJ while the
    /// field's unit tag says joule; the flag text is followed).
    package var energyExpendedKilojoules: Int?
    /// RR-intervals as sent, in 1/1024 s, oldest first.
    package var rrIntervals: [UInt16]

    package var sensorContact: SensorContact {
        switch contactBits {
        case 2: .notDetected
        case 3: .detected
        default: .notSupported
        }
    }

    /// RR-intervals in milliseconds: raw × 1000 / 1024 (exact in binary, e.g. 820 → 800.78125).
    package var rrIntervalsMilliseconds: [Double] {
        rrIntervals.map { Double($0) * 1000 / 1024 }
    }

    package init(beatsPerMinute: Int, isUInt16: Bool, contactBits: UInt8, energyExpendedKilojoules: Int?, rrIntervals: [UInt16]) {
        self.beatsPerMinute = beatsPerMinute
        self.isUInt16 = isUInt16
        self.contactBits = contactBits
        self.energyExpendedKilojoules = energyExpendedKilojoules
        self.rrIntervals = rrIntervals
    }

    /// Decodes one notification value.
    public static func decode(_ value: [UInt8]) throws(BLEValueError) -> HeartRateMeasurement {
        var reader = GATTValueReader(value, .heartRateMeasurement)
        let flags = try reader.u8("flags")
        try reader.rejectReserved(UInt32(flags), mask: 0xE0)
        let isUInt16 = flags & 0x01 != 0
        let bpm = isUInt16 ? Int(try reader.u16("heart rate (u16)")) : Int(try reader.u8("heart rate (u8)"))
        let energy = flags & 0x08 != 0 ? Int(try reader.u16("energy expended")) : nil
        var intervals: [UInt16] = []
        if flags & 0x10 != 0 {
            guard reader.remaining % 2 == 0 else {
                throw .unexpectedLength(
                    characteristic: .heartRateMeasurement, offset: value.count - 1,
                    expected: [value.count - 1, value.count + 1], found: value.count)
            }
            while reader.remaining > 0 { intervals.append(try reader.u16("RR-interval")) }
        }
        try reader.expectEnd(allowed: [reader.offset])
        return HeartRateMeasurement(
            beatsPerMinute: bpm, isUInt16: isUInt16, contactBits: (flags >> 1) & 0x03,
            energyExpendedKilojoules: energy, rrIntervals: intervals)
    }
}

/// Where a heart-rate sensor is worn (Body Sensor Location 0x2A38, one byte).
public enum BodySensorLocation: Sendable, Equatable, CustomStringConvertible {
    case other, chest, wrist, finger, hand, earLobe, foot
    /// A value the specification reserves (7–255).
    case reserved(UInt8)

    package init(rawValue: UInt8) {
        switch rawValue {
        case 0: self = .other
        case 1: self = .chest
        case 2: self = .wrist
        case 3: self = .finger
        case 4: self = .hand
        case 5: self = .earLobe
        case 6: self = .foot
        default: self = .reserved(rawValue)
        }
    }

    /// Decodes the read value (exactly one byte).
    public static func decode(_ value: [UInt8]) throws(BLEValueError) -> BodySensorLocation {
        var reader = GATTValueReader(value, .bodySensorLocation)
        let raw = try reader.u8("location")
        try reader.expectEnd(allowed: [1])
        return BodySensorLocation(rawValue: raw)
    }

    public var description: String {
        switch self {
        case .other: "other"
        case .chest: "chest"
        case .wrist: "wrist"
        case .finger: "finger"
        case .hand: "hand"
        case .earLobe: "ear lobe"
        case .foot: "foot"
        case .reserved(let raw): "reserved (\(raw))"
        }
    }
}

/// Heart Rate Control Point 0x2A39 commands.
package enum HeartRateControlPoint {
    /// Resets the sensor's energy-expended counter (opcode 0x01).
    package static let resetEnergyExpended: [UInt8] = [0x01]
}
