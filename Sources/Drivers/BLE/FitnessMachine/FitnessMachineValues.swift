/// Fitness Machine service 0x1826: Fitness Machine Feature 0x2ACC (read), Treadmill Data 0x2ACD
/// and Indoor Bike Data 0x2AD2 (notify).
///
/// Sources: Treadmill Data — Bluetooth SIG GATT XML org.bluetooth.characteristic.treadmill_data
/// (2017-02-14, oesmith/gatt-xml). Indoor Bike Data — the SIG GSS as rendered in the trouble-host
/// docs (constant INDOOR_BIKE_DATA) and RonanB96/bluetooth-sig-python indoor_bike_data.py (also
/// GSS-derived); incyclist/devices parseIndoorBikeData. Feature bits — incyclist/devices
/// FitnessMachineFeatureFlag / TargetSettingFeatureFlag and bluetooth-sig-python
/// fitness_machine_feature.py (which names machine bit 8 "stair count" where incyclist says
/// "stride count", and stops the target bits at 13); the SIG XML for 0x2ACC has no field list. UUIDs: BlueZ
/// src/shared/util.c.
///
/// Covered: every field of Treadmill Data and Indoor Bike Data that the flags can announce, and both
/// 32-bit bit fields of the Feature. Two field widths are disputed between sources, and the value's
/// length settles them: Treadmill pace (u8 in 0.1 km/min per the SIG XML; some decoders read two
/// bytes) and Indoor Bike resistance level (sint16 in incyclist and other FTMS 1.0-era
/// implementations; u8 ×10 in the GSS-derived decoder). Each is kept raw with the width it was read at. Not covered: Cross
/// Trainer, Step Climber, Stair Climber and Rower Data, Training Status, Fitness Machine Status,
/// Control Point, supported ranges, and the "data not available" sentinels (not in these sources).
/// With the More Data flag (bit 0) set, a record is split over notifications and the speed is absent
/// from this one; joining the parts is the caller's job.

/// Fitness Machine Feature 0x2ACC: two little-endian 32-bit bit fields.
public struct FitnessMachineFeature: Sendable, Equatable {
    /// What the machine measures (first u32).
    package struct Machine: OptionSet, Sendable, Hashable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        package static let averageSpeed = Machine(rawValue: 1 << 0)
        package static let cadence = Machine(rawValue: 1 << 1)
        package static let totalDistance = Machine(rawValue: 1 << 2)
        package static let inclination = Machine(rawValue: 1 << 3)
        package static let elevationGain = Machine(rawValue: 1 << 4)
        package static let pace = Machine(rawValue: 1 << 5)
        package static let stepCount = Machine(rawValue: 1 << 6)
        package static let resistanceLevel = Machine(rawValue: 1 << 7)
        package static let strideCount = Machine(rawValue: 1 << 8)
        package static let expendedEnergy = Machine(rawValue: 1 << 9)
        package static let heartRateMeasurement = Machine(rawValue: 1 << 10)
        package static let metabolicEquivalent = Machine(rawValue: 1 << 11)
        package static let elapsedTime = Machine(rawValue: 1 << 12)
        package static let remainingTime = Machine(rawValue: 1 << 13)
        package static let powerMeasurement = Machine(rawValue: 1 << 14)
        package static let forceOnBeltAndPowerOutput = Machine(rawValue: 1 << 15)
        package static let userDataRetention = Machine(rawValue: 1 << 16)
    }

    /// Which targets the control point accepts (second u32).
    package struct TargetSettings: OptionSet, Sendable, Hashable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        package static let speed = TargetSettings(rawValue: 1 << 0)
        package static let inclination = TargetSettings(rawValue: 1 << 1)
        package static let resistance = TargetSettings(rawValue: 1 << 2)
        package static let power = TargetSettings(rawValue: 1 << 3)
        package static let heartRate = TargetSettings(rawValue: 1 << 4)
        package static let expendedEnergy = TargetSettings(rawValue: 1 << 5)
        package static let stepNumber = TargetSettings(rawValue: 1 << 6)
        package static let strideNumber = TargetSettings(rawValue: 1 << 7)
        package static let distance = TargetSettings(rawValue: 1 << 8)
        package static let trainingTime = TargetSettings(rawValue: 1 << 9)
        package static let timeInTwoHeartRateZones = TargetSettings(rawValue: 1 << 10)
        package static let timeInThreeHeartRateZones = TargetSettings(rawValue: 1 << 11)
        package static let timeInFiveHeartRateZones = TargetSettings(rawValue: 1 << 12)
        package static let indoorBikeSimulation = TargetSettings(rawValue: 1 << 13)
        package static let wheelCircumference = TargetSettings(rawValue: 1 << 14)
        package static let spinDownControl = TargetSettings(rawValue: 1 << 15)
        package static let cadence = TargetSettings(rawValue: 1 << 16)
    }

    package var machine: Machine
    package var targetSettings: TargetSettings

    package init(machine: Machine, targetSettings: TargetSettings) {
        self.machine = machine
        self.targetSettings = targetSettings
    }

    public static func decode(_ value: [UInt8]) throws(BLEValueError) -> FitnessMachineFeature {
        var reader = GATTValueReader(value, .fitnessMachineFeature)
        let machine = try reader.u32("fitness machine features")
        let targets = try reader.u32("target setting features")
        try reader.expectEnd(allowed: [8])
        return FitnessMachineFeature(machine: Machine(rawValue: machine), targetSettings: TargetSettings(rawValue: targets))
    }
}

/// Expended energy as the FTMS data characteristics carry it: total u16, per hour u16, per minute u8 (kcal).
package struct FitnessMachineEnergy: Sendable, Equatable {
    package var totalKilocalories: UInt16
    package var perHourKilocalories: UInt16
    package var perMinuteKilocalories: UInt8

    package init(totalKilocalories: UInt16, perHourKilocalories: UInt16, perMinuteKilocalories: UInt8) {
        self.totalKilocalories = totalKilocalories
        self.perHourKilocalories = perHourKilocalories
        self.perMinuteKilocalories = perMinuteKilocalories
    }
}

extension GATTValueReader {
    fileprivate mutating func energy() throws(BLEValueError) -> FitnessMachineEnergy {
        FitnessMachineEnergy(
            totalKilocalories: try u16("total energy"), perHourKilocalories: try u16("energy per hour"),
            perMinuteKilocalories: try u8("energy per minute"))
    }

    /// Reads a field whose width is one of `widths` (first = the preferred source), picking the
    /// width that makes the value end exactly where the flags say; `rest` is the length of the
    /// fields after it.
    fileprivate mutating func disputed(_ field: String, widths: [Int], rest: Int) throws(BLEValueError) -> (raw: Int, width: Int) {
        let fits = widths.filter { remaining == $0 + rest }
        guard let width = fits.first else {
            let allowed = widths.map { offset - start + $0 + rest }
            throw .unexpectedLength(characteristic: characteristic, offset: offset, expected: allowed, found: end - start)
        }
        switch width {
        case 1: return (Int(try u8(field)), 1)
        default: return (Int(try s16(field)), 2)
        }
    }
}

/// One Treadmill Data notification (flags u16; fields in flag order).
public struct TreadmillData: Sendable, Equatable {
    package var flags: UInt16
    /// 0.01 km/h; absent when More Data (bit 0) is set.
    package var instantaneousSpeed: UInt16?
    /// 0.01 km/h (bit 1).
    package var averageSpeed: UInt16?
    /// m, u24 (bit 2).
    package var totalDistanceMetres: UInt32?
    /// 0.1 % (bit 3, with the ramp angle).
    package var inclination: Int16?
    /// 0.1 degree (bit 3).
    package var rampAngleSetting: Int16?
    /// 0.1 m (bit 4, with the negative gain).
    package var positiveElevationGain: UInt16?
    /// 0.1 m (bit 4).
    package var negativeElevationGain: UInt16?
    /// Pace as sent (bit 5): in 0.1 km/min when `paceWidth` is 1 (SIG XML); unit unverified when 2.
    package var instantaneousPace: Int?
    /// Pace as sent (bit 6), same width and unit as the instantaneous pace.
    package var averagePace: Int?
    /// The width pace fields were read at (1 or 2 bytes), nil without pace fields.
    package var paceWidth: Int?
    /// Bit 7.
    package var energy: FitnessMachineEnergy?
    /// bpm (bit 8).
    package var heartRate: UInt8?
    /// 0.1 MET (bit 9).
    package var metabolicEquivalent: UInt8?
    /// s (bit 10).
    package var elapsedTimeSeconds: UInt16?
    /// s (bit 11).
    package var remainingTimeSeconds: UInt16?
    /// N (bit 12, with the power output).
    package var forceOnBeltNewtons: Int16?
    /// W (bit 12).
    package var powerOutputWatts: Int16?

    /// True when bit 0 (More Data) says the record continues in the next notification.
    package var moreData: Bool { flags & 0x0001 != 0 }
    package var instantaneousSpeedKilometresPerHour: Double? { instantaneousSpeed.map { Double($0) / 100 } }
    package var inclinationPercent: Double? { inclination.map { Double($0) / 10 } }

    package init(flags: UInt16) { self.flags = flags }

    public static func decode(_ value: [UInt8]) throws(BLEValueError) -> TreadmillData {
        var reader = GATTValueReader(value, .treadmillData)
        let flags = try reader.u16("flags")
        try reader.rejectReserved(UInt32(flags), mask: 0xE000)
        func has(_ bit: Int) -> Bool { flags & (1 << bit) != 0 }
        var data = TreadmillData(flags: flags)
        if !has(0) { data.instantaneousSpeed = try reader.u16("instantaneous speed") }
        if has(1) { data.averageSpeed = try reader.u16("average speed") }
        if has(2) { data.totalDistanceMetres = try reader.u24("total distance") }
        if has(3) {
            data.inclination = try reader.s16("inclination")
            data.rampAngleSetting = try reader.s16("ramp angle setting")
        }
        if has(4) {
            data.positiveElevationGain = try reader.u16("positive elevation gain")
            data.negativeElevationGain = try reader.u16("negative elevation gain")
        }
        let paceFields = (has(5) ? 1 : 0) + (has(6) ? 1 : 0)
        if paceFields > 0 {
            let after = [(7, 5), (8, 1), (9, 1), (10, 2), (11, 2), (12, 4)].reduce(0) { $0 + (has($1.0) ? $1.1 : 0) }
            let width = [1, 2].first { reader.remaining == paceFields * $0 + after }
            guard let width else {
                throw .unexpectedLength(
                    characteristic: .treadmillData, offset: reader.offset,
                    expected: [1, 2].map { reader.offset + paceFields * $0 + after }, found: value.count)
            }
            data.paceWidth = width
            func pace(_ field: String) throws(BLEValueError) -> Int {
                width == 1 ? Int(try reader.u8(field)) : Int(try reader.u16(field))
            }
            if has(5) { data.instantaneousPace = try pace("instantaneous pace") }
            if has(6) { data.averagePace = try pace("average pace") }
        }
        if has(7) { data.energy = try reader.energy() }
        if has(8) { data.heartRate = try reader.u8("heart rate") }
        if has(9) { data.metabolicEquivalent = try reader.u8("metabolic equivalent") }
        if has(10) { data.elapsedTimeSeconds = try reader.u16("elapsed time") }
        if has(11) { data.remainingTimeSeconds = try reader.u16("remaining time") }
        if has(12) {
            data.forceOnBeltNewtons = try reader.s16("force on belt")
            data.powerOutputWatts = try reader.s16("power output")
        }
        try reader.expectEnd(allowed: [reader.offset])
        return data
    }
}

/// One Indoor Bike Data notification (flags u16; fields in flag order).
public struct IndoorBikeData: Sendable, Equatable {
    package var flags: UInt16
    /// 0.01 km/h; absent when More Data (bit 0) is set.
    package var instantaneousSpeed: UInt16?
    /// 0.01 km/h (bit 1).
    package var averageSpeed: UInt16?
    /// 0.5 rpm (bit 2).
    package var instantaneousCadence: UInt16?
    /// 0.5 rpm (bit 3).
    package var averageCadence: UInt16?
    /// m, u24 (bit 4).
    package var totalDistanceMetres: UInt32?
    /// Resistance level as sent (bit 5): sint16 when `resistanceWidth` is 2, u8 (×10 per the GSS) when 1.
    package var resistanceLevel: Int?
    package var resistanceWidth: Int?
    /// W (bit 6).
    package var instantaneousPowerWatts: Int16?
    /// W (bit 7).
    package var averagePowerWatts: Int16?
    /// Bit 8.
    package var energy: FitnessMachineEnergy?
    /// bpm (bit 9).
    package var heartRate: UInt8?
    /// 0.1 MET (bit 10).
    package var metabolicEquivalent: UInt8?
    /// s (bit 11).
    package var elapsedTimeSeconds: UInt16?
    /// s (bit 12).
    package var remainingTimeSeconds: UInt16?

    package var moreData: Bool { flags & 0x0001 != 0 }
    package var instantaneousSpeedKilometresPerHour: Double? { instantaneousSpeed.map { Double($0) / 100 } }
    package var instantaneousCadenceRPM: Double? { instantaneousCadence.map { Double($0) / 2 } }

    package init(flags: UInt16) { self.flags = flags }

    public static func decode(_ value: [UInt8]) throws(BLEValueError) -> IndoorBikeData {
        var reader = GATTValueReader(value, .indoorBikeData)
        let flags = try reader.u16("flags")
        try reader.rejectReserved(UInt32(flags), mask: 0xE000)
        func has(_ bit: Int) -> Bool { flags & (1 << bit) != 0 }
        var data = IndoorBikeData(flags: flags)
        if !has(0) { data.instantaneousSpeed = try reader.u16("instantaneous speed") }
        if has(1) { data.averageSpeed = try reader.u16("average speed") }
        if has(2) { data.instantaneousCadence = try reader.u16("instantaneous cadence") }
        if has(3) { data.averageCadence = try reader.u16("average cadence") }
        if has(4) { data.totalDistanceMetres = try reader.u24("total distance") }
        if has(5) {
            let after = [(6, 2), (7, 2), (8, 5), (9, 1), (10, 1), (11, 2), (12, 2)].reduce(0) { $0 + (has($1.0) ? $1.1 : 0) }
            let (raw, width) = try reader.disputed("resistance level", widths: [2, 1], rest: after)
            data.resistanceLevel = raw
            data.resistanceWidth = width
        }
        if has(6) { data.instantaneousPowerWatts = try reader.s16("instantaneous power") }
        if has(7) { data.averagePowerWatts = try reader.s16("average power") }
        if has(8) { data.energy = try reader.energy() }
        if has(9) { data.heartRate = try reader.u8("heart rate") }
        if has(10) { data.metabolicEquivalent = try reader.u8("metabolic equivalent") }
        if has(11) { data.elapsedTimeSeconds = try reader.u16("elapsed time") }
        if has(12) { data.remainingTimeSeconds = try reader.u16("remaining time") }
        try reader.expectEnd(allowed: [reader.offset])
        return data
    }
}
