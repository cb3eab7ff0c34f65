import Model

/// Glucose service 0x1808 (blood-glucose meters): Glucose Measurement 0x2A18 and Glucose
/// Measurement Context 0x2A34 (notify), downloaded through the RACP.
///
/// Sources: Bluetooth SIG GATT XML glucose_measurement and glucose_measurement_context
/// (oesmith/gatt-xml); NordicSemiconductor Android-BLE-Common-Library
/// GlucoseMeasurementContextDataCallback (tester = low nibble, health = high nibble, as the XML's
/// nibble note says); Glucose Service 1.0.
///
/// Units: the concentration arrives in kg/L or mol/L (flag bit 2). 1 kg/L = 10⁶ mg per 10 dL, so
/// mg/dL = kg/L × 100 000; mmol/L = mol/L × 1000, and mmol/L becomes mg/dL with the project's one
/// factor `GlucoseUnit.mgdlPerMmol` (18.016).

/// The time offset of a Glucose Measurement (s16 minutes), with its two sentinels.
package enum GlucoseTimeOffset: Sendable, Equatable {
    case minutes(Int16)
    /// 0x7FFF: the offset is too large to represent.
    case overrun
    /// 0x8000: the offset is too negative to represent.
    case underrun

    init(raw: Int16) {
        switch raw {
        case Int16.max: self = .overrun
        case Int16.min: self = .underrun
        default: self = .minutes(raw)
        }
    }
}

/// A glucose concentration and the unit it was sent in.
package struct GlucoseConcentration: Sendable, Equatable {
    package enum Unit: Sendable, Equatable {
        case kilogramsPerLitre
        case molesPerLitre
    }

    package var value: MedicalFloat
    package var unit: Unit

    package init(value: MedicalFloat, unit: Unit) {
        self.value = value
        self.unit = unit
    }

    /// mg/dL (kg/L × 100 000, or mol/L × 1000 × 18.016), nil for a special value.
    package var milligramsPerDecilitre: Double? {
        guard let (number, displayUnit) = displayed else { return nil }
        return displayUnit.milligramsPerDeciliter(number)
    }

    /// The value in the unit the meter displays: mg/dL for kg/L, mmol/L for mol/L. The power of
    /// ten is applied to the exponent, so 105e−5 kg/L is exactly 105 mg/dL.
    package var displayed: (value: Double, unit: GlucoseUnit)? {
        guard case .finite(let mantissa, let exponent) = value else { return nil }
        switch unit {
        case .kilogramsPerLitre: return (Self.decimal(mantissa, Int(exponent) + 5), .milligramsPerDeciliter)
        case .molesPerLitre: return (Self.decimal(mantissa, Int(exponent) + 3), .millimolesPerLiter)
        }
    }

    private static func decimal(_ mantissa: Int32, _ exponent: Int) -> Double {
        Double("\(mantissa)e\(exponent)") ?? .nan
    }
}

/// Sensor Status Annunciation (u16) of a Glucose Measurement.
package struct GlucoseSensorStatus: OptionSet, Sendable, Hashable {
    package let rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }
    package static let batteryLow = GlucoseSensorStatus(rawValue: 1 << 0)
    package static let sensorMalfunction = GlucoseSensorStatus(rawValue: 1 << 1)
    package static let sampleSizeInsufficient = GlucoseSensorStatus(rawValue: 1 << 2)
    package static let stripInsertionError = GlucoseSensorStatus(rawValue: 1 << 3)
    package static let stripTypeIncorrect = GlucoseSensorStatus(rawValue: 1 << 4)
    package static let resultAboveDeviceRange = GlucoseSensorStatus(rawValue: 1 << 5)
    package static let resultBelowDeviceRange = GlucoseSensorStatus(rawValue: 1 << 6)
    package static let temperatureTooHigh = GlucoseSensorStatus(rawValue: 1 << 7)
    package static let temperatureTooLow = GlucoseSensorStatus(rawValue: 1 << 8)
    package static let stripPulledTooSoon = GlucoseSensorStatus(rawValue: 1 << 9)
    package static let generalDeviceFault = GlucoseSensorStatus(rawValue: 1 << 10)
    package static let timeFault = GlucoseSensorStatus(rawValue: 1 << 11)
}

/// One Glucose Measurement notification.
///
/// Flags u8: bit 0 time offset present, bit 1 concentration + type/location present, bit 2 unit
/// (0 kg/L, 1 mol/L), bit 3 sensor status present, bit 4 context follows, bits 5–7 reserved. Then
/// sequence number u16, base time (Date Time, 7 bytes), time offset s16 minutes, concentration
/// SFLOAT, type/location byte, sensor status u16.
public struct GlucoseMeasurement: Sendable, Equatable {
    package var flags: UInt8
    package var sequenceNumber: UInt16
    /// The meter's clock (local wall time, no zone).
    package var baseTime: GATTDateTime
    package var timeOffset: GlucoseTimeOffset?
    package var concentration: GlucoseConcentration?
    package var sample: GlucoseSample?
    package var sensorStatus: GlucoseSensorStatus?

    /// Flag bit 4: a Glucose Measurement Context with the same sequence number follows.
    package var contextFollows: Bool { flags & 0x10 != 0 }

    /// The reading's wall-clock time (base time + offset) as seconds since 1970 read without a
    /// zone; nil when the base date is unknown or the offset over- or underran.
    package var wallClockSeconds: Int64? {
        guard let base = baseTime.wallClockSeconds else { return nil }
        switch timeOffset {
        case .none: return base
        case .minutes(let minutes)?: return base + Int64(minutes) * 60
        case .overrun?, .underrun?: return nil
        }
    }

    package init(
        flags: UInt8, sequenceNumber: UInt16, baseTime: GATTDateTime, timeOffset: GlucoseTimeOffset? = nil,
        concentration: GlucoseConcentration? = nil, sample: GlucoseSample? = nil, sensorStatus: GlucoseSensorStatus? = nil
    ) {
        self.flags = flags
        self.sequenceNumber = sequenceNumber
        self.baseTime = baseTime
        self.timeOffset = timeOffset
        self.concentration = concentration
        self.sample = sample
        self.sensorStatus = sensorStatus
    }

    public static func decode(_ value: [UInt8]) throws(BLEValueError) -> GlucoseMeasurement {
        var reader = GATTValueReader(value, .glucoseMeasurement)
        let flags = try reader.u8("flags")
        try reader.rejectReserved(UInt32(flags), mask: 0xE0)
        let sequence = try reader.u16("sequence number")
        var measurement = GlucoseMeasurement(flags: flags, sequenceNumber: sequence, baseTime: try reader.dateTime("base time"))
        if flags & 0x01 != 0 { measurement.timeOffset = GlucoseTimeOffset(raw: try reader.s16("time offset")) }
        if flags & 0x02 != 0 {
            measurement.concentration = GlucoseConcentration(
                value: try reader.sfloat("glucose concentration"),
                unit: flags & 0x04 != 0 ? .molesPerLitre : .kilogramsPerLitre)
            measurement.sample = GlucoseSample(byte: try reader.u8("type and sample location"))
        }
        if flags & 0x08 != 0 {
            measurement.sensorStatus = GlucoseSensorStatus(rawValue: try reader.u16("sensor status annunciation"))
        }
        try reader.expectEnd(allowed: [reader.offset])
        return measurement
    }
}

/// One Glucose Measurement Context notification.
///
/// Flags u8: bit 0 carbohydrate ID + carbohydrate, bit 1 meal, bit 2 tester/health, bit 3 exercise
/// duration + intensity, bit 4 medication ID + medication, bit 5 medication unit (0 kg, 1 litre),
/// bit 6 HbA1c, bit 7 extended flags byte. Then sequence number u16, extended flags u8, carbohydrate
/// ID u8 + SFLOAT kg, meal u8, tester (low nibble) / health (high nibble), exercise duration u16 s
/// (65535 = overrun) + intensity u8 %, medication ID u8 + SFLOAT (kg or litres), HbA1c SFLOAT %.
public struct GlucoseMeasurementContext: Sendable, Equatable {
    package struct Carbohydrate: Sendable, Equatable {
        /// 1 breakfast, 2 lunch, 3 dinner, 4 snack, 5 drink, 6 supper, 7 brunch.
        package var id: UInt8
        package var kilograms: MedicalFloat
        package var grams: Double? { kilograms.value.map { $0 * 1000 } }

        package init(id: UInt8, kilograms: MedicalFloat) {
            self.id = id
            self.kilograms = kilograms
        }
    }

    package struct Exercise: Sendable, Equatable {
        /// Seconds; 65535 means overrun (the exercise lasted longer).
        package var durationSeconds: UInt16
        /// Percent.
        package var intensityPercent: UInt8
        /// Nil when the duration overran.
        package var duration: Int? { durationSeconds == 0xFFFF ? nil : Int(durationSeconds) }

        package init(durationSeconds: UInt16, intensityPercent: UInt8) {
            self.durationSeconds = durationSeconds
            self.intensityPercent = intensityPercent
        }
    }

    package struct Medication: Sendable, Equatable {
        /// 1 rapid-acting, 2 short-acting, 3 intermediate-acting, 4 long-acting, 5 pre-mixed insulin.
        package var id: UInt8
        package var amount: MedicalFloat
        /// Flag bit 5: the amount is in litres, else kilograms.
        package var inLitres: Bool

        package init(id: UInt8, amount: MedicalFloat, inLitres: Bool) {
            self.id = id
            self.amount = amount
            self.inLitres = inLitres
        }
    }

    package var flags: UInt8
    package var sequenceNumber: UInt16
    /// Reserved content, kept raw.
    package var extendedFlags: UInt8?
    package var carbohydrate: Carbohydrate?
    /// 1 preprandial, 2 postprandial, 3 fasting, 4 casual, 5 bedtime.
    package var meal: UInt8?
    /// 1 self, 2 health-care professional, 3 lab test, 15 not available.
    package var tester: UInt8?
    /// 1 minor issues, 2 major issues, 3 during menses, 4 under stress, 5 none, 15 not available.
    package var health: UInt8?
    package var exercise: Exercise?
    package var medication: Medication?
    /// HbA1c, %.
    package var hbA1c: MedicalFloat?

    package init(flags: UInt8, sequenceNumber: UInt16) {
        self.flags = flags
        self.sequenceNumber = sequenceNumber
    }

    public static func decode(_ value: [UInt8]) throws(BLEValueError) -> GlucoseMeasurementContext {
        var reader = GATTValueReader(value, .glucoseMeasurementContext)
        let flags = try reader.u8("flags")
        var context = GlucoseMeasurementContext(flags: flags, sequenceNumber: try reader.u16("sequence number"))
        if flags & 0x80 != 0 { context.extendedFlags = try reader.u8("extended flags") }
        if flags & 0x01 != 0 {
            context.carbohydrate = Carbohydrate(id: try reader.u8("carbohydrate ID"), kilograms: try reader.sfloat("carbohydrate"))
        }
        if flags & 0x02 != 0 { context.meal = try reader.u8("meal") }
        if flags & 0x04 != 0 {
            let byte = try reader.u8("tester and health")
            context.tester = byte & 0x0F
            context.health = byte >> 4
        }
        if flags & 0x08 != 0 {
            context.exercise = Exercise(
                durationSeconds: try reader.u16("exercise duration"), intensityPercent: try reader.u8("exercise intensity"))
        }
        if flags & 0x10 != 0 {
            context.medication = Medication(
                id: try reader.u8("medication ID"), amount: try reader.sfloat("medication"), inLitres: flags & 0x20 != 0)
        }
        if flags & 0x40 != 0 { context.hbA1c = try reader.sfloat("HbA1c") }
        try reader.expectEnd(allowed: [reader.offset])
        return context
    }
}

/// A Glucose Measurement with the context the meter sent for it.
package struct GlucoseRecord: Sendable, Equatable {
    package var measurement: GlucoseMeasurement
    package var context: GlucoseMeasurementContext?

    package init(measurement: GlucoseMeasurement, context: GlucoseMeasurementContext?) {
        self.measurement = measurement
        self.context = context
    }

    /// Pairs each measurement with the context of the same sequence number, in measurement order.
    /// Contexts with no measurement are returned separately (a meter may send a context for a
    /// record the download did not cover); the last context wins when one is repeated.
    package static func link(
        measurements: [GlucoseMeasurement], contexts: [GlucoseMeasurementContext]
    ) -> (records: [GlucoseRecord], unmatchedContexts: [GlucoseMeasurementContext]) {
        var bySequence: [UInt16: GlucoseMeasurementContext] = [:]
        for context in contexts { bySequence[context.sequenceNumber] = context }
        let records = measurements.map { GlucoseRecord(measurement: $0, context: bySequence[$0.sequenceNumber]) }
        let matched = Set(measurements.map(\.sequenceNumber))
        let unmatched = contexts.filter { !matched.contains($0.sequenceNumber) }
        return (records, unmatched)
    }
}
