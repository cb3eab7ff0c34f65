import Foundation

/// How a glucose value was measured.
public enum ReadingKind: String, Sendable, Codable, CaseIterable {
    /// An interstitial reading from a CGM sensor.
    case sensor
    /// A capillary blood reading from a strip (including the calibrations entered into a CGM receiver).
    case fingerstick
}

/// Set when the device showed the reading as beyond its measuring range rather than as a number.
public enum RangeFlag: String, Sendable, Codable, CaseIterable {
    /// The device showed LO; the stored value is the number the device recorded for it.
    case belowRange = "LO"
    /// The device showed HI; the stored value is the number the device recorded for it.
    case aboveRange = "HI"
}

/// The CGM trend arrow.
public enum Trend: String, Sendable, Codable, CaseIterable {
    case doubleUp = "DoubleUp"
    case singleUp = "SingleUp"
    case fortyFiveUp = "FortyFiveUp"
    case flat = "Flat"
    case fortyFiveDown = "FortyFiveDown"
    case singleDown = "SingleDown"
    case doubleDown = "DoubleDown"
    case notComputable = "NotComputable"
    case rateOutOfRange = "RateOutOfRange"
}

/// The device a reading came from: its family (driver) and serial number.
public struct DeviceSource: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The device family, e.g. `dexcom`.
    public var family: DeviceFamily
    /// The device's own serial number.
    public var serial: String
    /// The model as the device names itself, e.g. `G4Receiver`, when known.
    public var model: String?

    public init(family: DeviceFamily, serial: String, model: String? = nil) {
        self.family = family
        self.serial = serial
        self.model = model
    }

    public var description: String { "\(family):\(serial)" }
}

/// A glucose reading normalised for the store: a UTC instant, a value in mg/dL, and what the
/// device itself said about it.
public struct GlucoseReading: Sendable, Equatable, Codable {
    /// The instant of the reading, in UTC.
    public var time: Date
    /// The value in mg/dL.
    public var mgdl: Double
    /// The unit the device reported the value in.
    public var unit: GlucoseUnit
    public var kind: ReadingKind
    public var flag: RangeFlag?
    public var trend: Trend?
    /// The device's noise grade, raw (Dexcom: 1 clean … 6 max).
    public var noise: Int?
    /// The device's own key for the record, unique among the records of one source
    /// (e.g. `egv:53808`). A re-import of the same record finds it by this key.
    public var recordKey: String
    /// The device's own clock reading for the record, in the device's units (seconds).
    public var deviceTime: Int64
    /// The wall-clock time the device displayed for the record, without a zone
    /// (`yyyy-MM-dd'T'HH:mm:ss`), when the device keeps one.
    public var displayTime: String? {
        get { displayClock.text }
        set { displayClock = DisplayTime(newValue) }
    }
    /// ``displayTime`` as it came: a driver's wall-clock seconds are written as text only when
    /// the text is needed (the store writes its bytes straight into the row). Not optional (an
    /// empty value is none), so that copying a reading stays a retain of its strings.
    package var displayClock: DisplayTime
    /// What the device recorded with the reading (a meter's meal or activity markers), when anything.
    public var note: String?

    public init(
        time: Date, mgdl: Double, unit: GlucoseUnit = .milligramsPerDeciliter, kind: ReadingKind,
        flag: RangeFlag? = nil, trend: Trend? = nil, noise: Int? = nil,
        recordKey: String, deviceTime: Int64, displayTime: String? = nil, note: String? = nil
    ) {
        self.init(
            time: time, mgdl: mgdl, unit: unit, kind: kind, flag: flag, trend: trend, noise: noise, recordKey: recordKey,
            deviceTime: deviceTime, displayClock: DisplayTime(displayTime), note: note)
    }

    /// A reading with its display time as it came (a driver's wall-clock seconds are kept as a
    /// number): made in one step, with nothing set after, so that no copy of it is made.
    package init(
        time: Date, mgdl: Double, unit: GlucoseUnit, kind: ReadingKind, flag: RangeFlag?, trend: Trend?, noise: Int?,
        recordKey: String, deviceTime: Int64, displayClock: DisplayTime, note: String?
    ) {
        self.time = time
        self.mgdl = mgdl
        self.unit = unit
        self.kind = kind
        self.flag = flag
        self.trend = trend
        self.noise = noise
        self.recordKey = recordKey
        self.deviceTime = deviceTime
        self.displayClock = displayClock
        self.note = note
    }

    private enum CodingKeys: String, CodingKey {
        case time, mgdl, unit, kind, flag, trend, noise, recordKey, deviceTime, displayTime, note
    }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            time: try values.decode(Date.self, forKey: .time), mgdl: try values.decode(Double.self, forKey: .mgdl),
            unit: try values.decode(GlucoseUnit.self, forKey: .unit), kind: try values.decode(ReadingKind.self, forKey: .kind),
            flag: try values.decodeIfPresent(RangeFlag.self, forKey: .flag),
            trend: try values.decodeIfPresent(Trend.self, forKey: .trend),
            noise: try values.decodeIfPresent(Int.self, forKey: .noise),
            recordKey: try values.decode(String.self, forKey: .recordKey),
            deviceTime: try values.decode(Int64.self, forKey: .deviceTime),
            displayTime: try values.decodeIfPresent(String.self, forKey: .displayTime),
            note: try values.decodeIfPresent(String.self, forKey: .note))
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(time, forKey: .time)
        try values.encode(mgdl, forKey: .mgdl)
        try values.encode(unit, forKey: .unit)
        try values.encode(kind, forKey: .kind)
        try values.encodeIfPresent(flag, forKey: .flag)
        try values.encodeIfPresent(trend, forKey: .trend)
        try values.encodeIfPresent(noise, forKey: .noise)
        try values.encode(recordKey, forKey: .recordKey)
        try values.encode(deviceTime, forKey: .deviceTime)
        try values.encodeIfPresent(displayTime, forKey: .displayTime)
        try values.encodeIfPresent(note, forKey: .note)
    }
}

/// A device's displayed wall clock for a record, without a zone, or none: equal as its text
/// (`yyyy-MM-dd'T'HH:mm:ss` for seconds). A struct of two optionals rather than an optional
/// enum, so that copying it is a retain of one string.
package struct DisplayTime: Sendable, Equatable {
    /// Seconds since 1970-01-01T00:00:00, read as a wall clock; nil when the time came as text.
    package let wallClock: Int64?
    private let given: String?

    /// The text `text`, or none.
    package init(_ text: String?) {
        wallClock = nil
        given = text
    }

    /// Seconds since 1970 read as a wall clock.
    package init(wallClock seconds: Int64) {
        wallClock = seconds
        given = nil
    }

    /// The time as text, as ``CivilDate/wallClock(_:)`` writes seconds; nil for none.
    package var text: String? { given ?? wallClock.map(CivilDate.wallClock) }

    package static func == (lhs: DisplayTime, rhs: DisplayTime) -> Bool {
        if let left = lhs.wallClock, let right = rhs.wallClock { return left == right }
        return lhs.text == rhs.text
    }
}
