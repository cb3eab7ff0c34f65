import ArgumentParser
import Foundation
import Model
import Store

struct ProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Shows or sets the age and heart rates exercise sessions are graded by.",
        discussion: """
            With a resting and a maximum heart rate (set, or estimated from the age as \
            208 − 0.7 × age), heart rate is read as % of heart-rate reserve; with a maximum only, \
            as % of maximum; with neither, sessions are graded by cadence and bike speed only. \
            Options not given keep their stored value. The profile applies to later imports.
            """)

    enum Field: String, ExpressibleByArgument, CaseIterable {
        case age
        case maxHR = "max-hr"
        case restingHR = "resting-hr"
    }

    @Option(name: .long, help: ArgumentHelp("Age in years.", valueName: "years"))
    var age: Int?

    @Option(
        name: .customLong("max-hr"), help: ArgumentHelp("A measured maximum heart rate, preferred to the estimate from the age.", valueName: "bpm"))
    var maxHR: Int?

    @Option(name: .customLong("resting-hr"), help: ArgumentHelp("Resting heart rate.", valueName: "bpm"))
    var restingHR: Int?

    @Option(name: .long, help: ArgumentHelp("Forget a stored value: age, max-hr or resting-hr (repeatable).", valueName: "field"))
    var unset: [Field] = []

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func run() throws {
        try reportingErrors {
            let store = try storeOptions.open()
            var profile = try store.userProfile()
            if age != nil || maxHR != nil || restingHR != nil || !unset.isEmpty {
                profile = try updated(profile)
                try store.setUserProfile(profile)
            }
            if outputOptions.json {
                print(
                    try Format.json(
                        ProfileJSON(
                            age: profile.age, maxHeartRate: profile.maxHeartRate, restingHeartRate: profile.restingHeartRate,
                            effectiveMaxHeartRate: profile.effectiveMaxHeartRate, heartRateMethod: profile.heartRateMethod?.rawValue)))
            } else {
                print(Self.describe(profile), terminator: "")
            }
        }
    }

    /// `profile` with the options applied: `--unset` first, then the values given.
    func updated(_ profile: UserProfile) throws -> UserProfile {
        for field in unset {
            let given =
                switch field {
                case .age: age
                case .maxHR: maxHR
                case .restingHR: restingHR
                }
            if given != nil { throw CLIError("--\(field.rawValue) and --unset \(field.rawValue) contradict each other") }
        }
        func value(_ field: Field, _ given: Int?, _ stored: Int?) -> Int? {
            unset.contains(field) ? nil : given ?? stored
        }
        return try UserProfile(
            age: value(.age, age, profile.age), maxHeartRate: value(.maxHR, maxHR, profile.maxHeartRate),
            restingHeartRate: value(.restingHR, restingHR, profile.restingHeartRate))
    }

    /// The profile and the method it leads to, one `name  value` line each.
    static func describe(_ profile: UserProfile) -> String {
        var maximum = "-"
        if let set = profile.maxHeartRate {
            maximum = "\(set) bpm (set)"
        } else if let age = profile.age {
            maximum = "\(bpm(UserProfile.tanakaMaxHeartRate(age: age))) (208 − 0.7 × age)"
        }
        let method =
            switch profile.heartRateMethod {
            case .reserve: "heart rate as % of heart-rate reserve (Karvonen), else cadence"
            case .maximum: "heart rate as % of maximum, else cadence"
            case nil: "cadence and bike speed only (set --age or --max-hr to use heart rate)"
            }
        return """
            age                 \(profile.age.map { "\($0) years" } ?? "-")
            maximum heart rate  \(maximum)
            resting heart rate  \(profile.restingHeartRate.map { "\($0) bpm" } ?? "-")
            intensity from      \(method)

            """
    }

    private static func bpm(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) bpm" : String(format: "%.1f bpm", value)
    }
}

/// `profile --json`: what is set, the maximum heart rate used (set, or estimated from the age)
/// and the method it leads to (none: cadence and bike speed only).
struct ProfileJSON: Encodable {
    var age: Int?
    var maxHeartRate: Int?
    var restingHeartRate: Int?
    var effectiveMaxHeartRate: Double?
    var heartRateMethod: String?

    enum CodingKeys: String, CodingKey {
        case age, maxHeartRate, restingHeartRate, effectiveMaxHeartRate, heartRateMethod
    }

    /// Every key, `null` when not set.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(age, forKey: .age)
        try container.encode(maxHeartRate, forKey: .maxHeartRate)
        try container.encode(restingHeartRate, forKey: .restingHeartRate)
        try container.encode(effectiveMaxHeartRate, forKey: .effectiveMaxHeartRate)
        try container.encode(heartRateMethod, forKey: .heartRateMethod)
    }
}
