/// Cycling Speed and Cadence service 0x1816: CSC Measurement 0x2A5B (notify), and the speed and
/// cadence derived from two successive measurements.
///
/// Sources: Bluetooth SIG GATT XML org.bluetooth.characteristic.csc_measurement
/// (https://github.com/oesmith/gatt-xml); Cycling Speed and Cadence Service 1.0. The cadence
/// follows from the field units: Δcrank ÷ (Δtime/1024) × 60, with wrap-around of the counters.

/// One CSC Measurement notification.
///
/// Flags u8: bit 0 wheel revolution data present, bit 1 crank revolution data present, bits 2–7
/// reserved. Wheel data: cumulative wheel revolutions u32 + last wheel event time u16 (1/1024 s).
/// Crank data: cumulative crank revolutions u16 + last crank event time u16 (1/1024 s).
public struct CSCMeasurement: Sendable, Equatable {
    package struct Revolutions<Count: FixedWidthInteger & UnsignedInteger & Sendable>: Sendable, Equatable {
        /// Cumulative revolutions; rolls over at the type's width.
        package var cumulative: Count
        /// When the last revolution ended, 1/1024 s; rolls over every 64 s.
        package var lastEventTime: UInt16

        package init(cumulative: Count, lastEventTime: UInt16) {
            self.cumulative = cumulative
            self.lastEventTime = lastEventTime
        }
    }

    package var wheel: Revolutions<UInt32>?
    package var crank: Revolutions<UInt16>?

    package init(wheel: Revolutions<UInt32>?, crank: Revolutions<UInt16>?) {
        self.wheel = wheel
        self.crank = crank
    }

    public static func decode(_ value: [UInt8]) throws(BLEValueError) -> CSCMeasurement {
        var reader = GATTValueReader(value, .cscMeasurement)
        let flags = try reader.u8("flags")
        try reader.rejectReserved(UInt32(flags), mask: 0xFC)
        var wheel: Revolutions<UInt32>?
        if flags & 0x01 != 0 {
            wheel = Revolutions(
                cumulative: try reader.u32("cumulative wheel revolutions"),
                lastEventTime: try reader.u16("last wheel event time"))
        }
        var crank: Revolutions<UInt16>?
        if flags & 0x02 != 0 {
            crank = Revolutions(
                cumulative: try reader.u16("cumulative crank revolutions"),
                lastEventTime: try reader.u16("last crank event time"))
        }
        try reader.expectEnd(allowed: [reader.offset])
        return CSCMeasurement(wheel: wheel, crank: crank)
    }
}

/// Speed, distance and cadence between two CSC measurements.
package struct CSCRates: Sendable, Equatable {
    /// Wheel speed, m/s; nil when no wheel event happened in between (or no wheel data).
    package var speedMetresPerSecond: Double?
    /// Distance covered by the wheel revolutions in between, m (0 when the wheel did not turn).
    package var distanceMetres: Double?
    /// Crank cadence, revolutions per minute; nil when no crank event happened in between.
    package var cadenceRPM: Double?

    package init(speedMetresPerSecond: Double?, distanceMetres: Double?, cadenceRPM: Double?) {
        self.speedMetresPerSecond = speedMetresPerSecond
        self.distanceMetres = distanceMetres
        self.cadenceRPM = cadenceRPM
    }
}

/// Turns successive CSC measurements into speed and cadence. Counters and event times are
/// differenced modulo their width (wheel revolutions u32, crank revolutions and both event times
/// u16), so a rollover between two measurements gives the true small difference.
///
/// A rate needs a new event: when the event time has not moved, the sensor saw no revolution
/// since the last notification and the rate is nil (the caller decides when "no event" means a
/// stop). A difference of more than 64 s cannot be told from a rollover; sensors notify about
/// once a second.
package struct CSCRateCalculator: Sendable {
    /// The wheel circumference used unless the rider's own is set, m.
    package static let defaultWheelCircumference = 2.096

    package var wheelCircumferenceMetres: Double
    package private(set) var previous: CSCMeasurement?

    package init(wheelCircumferenceMetres: Double = CSCRateCalculator.defaultWheelCircumference) {
        self.wheelCircumferenceMetres = wheelCircumferenceMetres
    }

    /// Adds a measurement and returns the rates since the previous one (all nil for the first).
    package mutating func add(_ measurement: CSCMeasurement) -> CSCRates {
        defer { previous = measurement }
        guard let previous else { return CSCRates(speedMetresPerSecond: nil, distanceMetres: nil, cadenceRPM: nil) }
        return Self.rates(from: previous, to: measurement, wheelCircumferenceMetres: wheelCircumferenceMetres)
    }

    /// The rates between two measurements (pure).
    package static func rates(
        from previous: CSCMeasurement, to current: CSCMeasurement,
        wheelCircumferenceMetres: Double = defaultWheelCircumference
    ) -> CSCRates {
        var speed: Double?
        var distance: Double?
        if let before = previous.wheel, let now = current.wheel {
            let revolutions = now.cumulative &- before.cumulative
            let ticks = now.lastEventTime &- before.lastEventTime
            distance = Double(revolutions) * wheelCircumferenceMetres
            if ticks > 0 { speed = Double(revolutions) * wheelCircumferenceMetres / (Double(ticks) / 1024) }
        }
        var cadence: Double?
        if let before = previous.crank, let now = current.crank {
            let revolutions = now.cumulative &- before.cumulative
            let ticks = now.lastEventTime &- before.lastEventTime
            if ticks > 0 { cadence = Double(revolutions) / (Double(ticks) / 1024) * 60 }
        }
        return CSCRates(speedMetresPerSecond: speed, distanceMetres: distance, cadenceRPM: cadence)
    }
}
