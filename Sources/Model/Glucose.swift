import Foundation

/// Units a glucose value can be reported in. The store's canonical unit is mg/dL.
public enum GlucoseUnit: String, Sendable, Codable, CaseIterable {
    case milligramsPerDeciliter = "mg/dL"
    case millimolesPerLiter = "mmol/L"

    /// mg/dL in one mmol/L of glucose: the one conversion factor used everywhere in glucobridge.
    public static let mgdlPerMmol = 18.016

    /// `value` in this unit, converted to mg/dL.
    public func milligramsPerDeciliter(_ value: Double) -> Double {
        switch self {
        case .milligramsPerDeciliter: value
        case .millimolesPerLiter: value * Self.mgdlPerMmol
        }
    }
}

/// The class of a glucose value, after the International Consensus on Time in Range
/// (Battelino et al., Diabetes Care 2019): two hypo levels, the target range, two hyper levels.
public enum GlucoseTag: String, Sendable, Codable, CaseIterable {
    case hypoLevel2 = "hypo-l2"
    case hypoLevel1 = "hypo-l1"
    case inRange = "in-range"
    case hyperLevel1 = "hyper-l1"
    case hyperLevel2 = "hyper-l2"

    public var isHypo: Bool { self == .hypoLevel1 || self == .hypoLevel2 }
    public var isHyper: Bool { self == .hyperLevel1 || self == .hyperLevel2 }
}

/// The edges between tags, in whole mg/dL. A value equal to `low` or `high` is in range.
public struct GlucoseThresholds: Sendable, Equatable, Codable {
    /// Below this: level-2 hypo.
    public let veryLow: Int
    /// Below this: level-1 hypo.
    public let low: Int
    /// Above this: level-1 hyper.
    public let high: Int
    /// Above this: level-2 hyper.
    public let veryHigh: Int

    /// The consensus defaults: < 54, < 70, > 180, > 250 mg/dL.
    public static let consensus = try! GlucoseThresholds(veryLow: 54, low: 70, high: 180, veryHigh: 250)

    public init(veryLow: Int, low: Int, high: Int, veryHigh: Int) throws {
        guard 0 < veryLow, veryLow <= low, low < high, high <= veryHigh else {
            throw ModelError.invalidThresholds(veryLow: veryLow, low: low, high: high, veryHigh: veryHigh)
        }
        self.veryLow = veryLow
        self.low = low
        self.high = high
        self.veryHigh = veryHigh
    }

    /// The tag of a value in mg/dL, decided on the value as the device sent it: 69.6 is below 70
    /// (level-1 hypo) and 180.1 above 180 (level-1 hyper), as time-in-range analyses count them.
    /// Only the last bits of binary noise are ignored (see ``exact(_:)``), never a decimal.
    public func tag(mgdl: Double) -> GlucoseTag {
        // The edges are whole mg/dL: in millionths they are exact as they are, with nothing to round.
        Self.classify(
            Self.exact(mgdl), veryLow: Double(veryLow) * 1_000_000, low: Double(low) * 1_000_000,
            high: Double(high) * 1_000_000, veryHigh: Double(veryHigh) * 1_000_000)
    }

    /// The tag of a value reported in mmol/L, decided on that value against the edges in mmol/L
    /// to one decimal, as meters display them (54, 70, 180, 250 mg/dL become 3.0, 3.9, 10.0,
    /// 13.9): 3.85 mmol/L is below 3.9.
    public func tag(mmolPerLiter: Double) -> GlucoseTag {
        func edge(_ mgdl: Int) -> Double { Self.exact((Double(mgdl) / GlucoseUnit.mgdlPerMmol * 10).rounded() / 10) }
        return Self.classify(Self.exact(mmolPerLiter), veryLow: edge(veryLow), low: edge(low), high: edge(high), veryHigh: edge(veryHigh))
    }

    /// `value` in millionths, a whole number: the decimal a device sent (at most six places)
    /// without the binary noise of a computation such as 539 × 0.1 or 3.9 × 18.016 ÷ 18.016,
    /// so that a value on an edge is on it, and one a tenth below is below.
    static func exact(_ value: Double) -> Double { (value * 1_000_000).rounded() }

    /// The tag of a value in the given unit.
    public func tag(_ value: Double, unit: GlucoseUnit) -> GlucoseTag {
        switch unit {
        case .milligramsPerDeciliter: tag(mgdl: value)
        case .millimolesPerLiter: tag(mmolPerLiter: value)
        }
    }

    private static func classify(_ v: Double, veryLow: Double, low: Double, high: Double, veryHigh: Double) -> GlucoseTag {
        if v < veryLow { return .hypoLevel2 }
        if v < low { return .hypoLevel1 }
        if v > veryHigh { return .hyperLevel2 }
        if v > high { return .hyperLevel1 }
        return .inRange
    }
}

/// Errors in values handed to the model.
public enum ModelError: Error, Equatable, CustomStringConvertible {
    case invalidThresholds(veryLow: Int, low: Int, high: Int, veryHigh: Int)

    public var description: String {
        switch self {
        case .invalidThresholds(let veryLow, let low, let high, let veryHigh):
            "glucose thresholds must satisfy 0 < very low ≤ low < high ≤ very high (got \(veryLow), \(low), \(high), \(veryHigh) mg/dL)"
        }
    }
}
