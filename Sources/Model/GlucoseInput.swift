import Foundation

/// Checks a glucose value a person typed: within what meters report, and plausible in the unit
/// given (5.5 is a normal mmol/L value but no mg/dL reading; 120 the other way round).
public enum GlucoseInput {
    /// What meters and CGMs report: below 20 mg/dL they show LO, above 600 HI.
    public static let reportable: ClosedRange<Double> = 20...600

    /// Throws when `value` in `unit` is outside ``reportable``, naming the other unit when the
    /// value would be a reading in it.
    public static func check(_ value: Double, unit: GlucoseUnit) throws(GlucoseInputError) {
        let mgdl = unit.milligramsPerDeciliter(value)
        guard value.isFinite, !reportable.contains(mgdl.rounded()) else { return }
        let other: GlucoseUnit = unit == .milligramsPerDeciliter ? .millimolesPerLiter : .milligramsPerDeciliter
        if value.isFinite, reportable.contains(other.milligramsPerDeciliter(value).rounded()) {
            throw .otherUnit(value: value, unit: unit, likely: other)
        }
        throw .outOfRange(value: value, unit: unit)
    }
}

/// A typed glucose value that cannot be a reading.
public enum GlucoseInputError: Error, Equatable, CustomStringConvertible {
    case otherUnit(value: Double, unit: GlucoseUnit, likely: GlucoseUnit)
    case outOfRange(value: Double, unit: GlucoseUnit)

    public var description: String {
        switch self {
        case .otherUnit(let value, let unit, let likely):
            "\(DisplayText.number(value, decimals: 2)) \(unit.rawValue) is not a plausible reading; did you mean \(DisplayText.number(value, decimals: 2)) \(likely.rawValue)? (give --unit \(likely.rawValue))"
        case .outOfRange(let value, let unit):
            "\(DisplayText.number(value, decimals: 2)) \(unit.rawValue) is outside what meters report (LO below 20 mg/dL / 1.1 mmol/L, HI above 600 mg/dL / 33.3 mmol/L)"
        }
    }
}
