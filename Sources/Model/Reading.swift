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
    public var family: String
    /// The device's own serial number.
    public var serial: String
    /// The model as the device names itself, e.g. `G4Receiver`, when known.
    public var model: String?

    public init(family: String, serial: String, model: String? = nil) {
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
    public var displayTime: String?
    /// What the device recorded with the reading (a meter's meal or activity markers), when anything.
    public var note: String?

    public init(
        time: Date, mgdl: Double, unit: GlucoseUnit = .milligramsPerDeciliter, kind: ReadingKind,
        flag: RangeFlag? = nil, trend: Trend? = nil, noise: Int? = nil,
        recordKey: String, deviceTime: Int64, displayTime: String? = nil, note: String? = nil
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
        self.displayTime = displayTime
        self.note = note
    }
}
