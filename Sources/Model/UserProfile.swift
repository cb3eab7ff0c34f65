/// What exercise detection needs to know of the person: age or maximum heart rate, and resting
/// heart rate. Every field is optional; what is known decides how minutes are classed (see
/// ``heartRateMethod``).
public struct UserProfile: Sendable, Equatable {
    /// Age in years, for the Tanaka estimate of the maximum heart rate.
    public private(set) var age: Int?
    /// A maximum heart rate the user measured or was given, in beats/min; preferred to the estimate.
    public private(set) var maxHeartRate: Int?
    /// Resting heart rate in beats/min.
    public private(set) var restingHeartRate: Int?

    /// Ages accepted, in years.
    public static let ages = 1...120
    /// Maximum heart rates accepted, in beats/min.
    public static let maxHeartRates = 60...250
    /// Resting heart rates accepted, in beats/min.
    public static let restingHeartRates = 20...150

    /// An empty profile: heart rate cannot be classed, only cadence.
    public init() {}

    /// Throws ``ProfileError`` when a value is outside its accepted range, or when the resting
    /// heart rate is not below the maximum (given or estimated).
    public init(age: Int? = nil, maxHeartRate: Int? = nil, restingHeartRate: Int? = nil) throws(ProfileError) {
        if let age, !Self.ages.contains(age) { throw .outOfRange(field: "age", value: age, range: Self.ages, unit: "years") }
        if let maxHeartRate, !Self.maxHeartRates.contains(maxHeartRate) {
            throw .outOfRange(field: "maximum heart rate", value: maxHeartRate, range: Self.maxHeartRates, unit: "bpm")
        }
        if let restingHeartRate, !Self.restingHeartRates.contains(restingHeartRate) {
            throw .outOfRange(field: "resting heart rate", value: restingHeartRate, range: Self.restingHeartRates, unit: "bpm")
        }
        self.age = age
        self.maxHeartRate = maxHeartRate
        self.restingHeartRate = restingHeartRate
        if let restingHeartRate, let maximum = effectiveMaxHeartRate, Double(restingHeartRate) >= maximum {
            throw .restingNotBelowMaximum(resting: restingHeartRate, maximum: maximum)
        }
    }

    /// The maximum heart rate after Tanaka, Monahan & Seals (J Am Coll Cardiol 2001;37:153–156):
    /// 208 − 0.7 × age, from a meta-analysis of 351 studies (18,712 subjects), independent of sex
    /// and activity; the common 220 − age has no research origin and errs by 10–12 bpm
    /// (Robergs & Landwehr, JEPonline 2002).
    public static func tanakaMaxHeartRate(age: Int) -> Double { 208 - 0.7 * Double(age) }

    /// The user's own maximum heart rate if set, else the Tanaka estimate from the age, else nil.
    public var effectiveMaxHeartRate: Double? {
        maxHeartRate.map(Double.init) ?? age.map(Self.tanakaMaxHeartRate(age:))
    }

    /// How heart rate is turned into intensity with this profile; nil when it cannot be.
    public var heartRateMethod: HeartRateMethod? {
        guard effectiveMaxHeartRate != nil else { return nil }
        return restingHeartRate == nil ? .maximum : .reserve
    }
}

/// How a heart rate is read as an intensity.
public enum HeartRateMethod: String, Sendable, Codable {
    /// Percent of heart-rate reserve (Karvonen): (HR − rest) ÷ (max − rest).
    case reserve = "heart-rate-reserve"
    /// Percent of maximum heart rate: HR ÷ max.
    case maximum = "heart-rate-maximum"
}

/// A user profile value the model refuses.
public enum ProfileError: Error, Equatable, CustomStringConvertible {
    case outOfRange(field: String, value: Int, range: ClosedRange<Int>, unit: String)
    case restingNotBelowMaximum(resting: Int, maximum: Double)

    public var description: String {
        switch self {
        case .outOfRange(let field, let value, let range, let unit):
            "the \(field) \(value) \(unit) is not within \(range.lowerBound)–\(range.upperBound) \(unit)"
        case .restingNotBelowMaximum(let resting, let maximum):
            "the resting heart rate \(resting) bpm must be below the maximum heart rate "
                + "(\(maximum == maximum.rounded() ? String(Int(maximum)) : String(maximum)) bpm); check both values"
        }
    }
}
