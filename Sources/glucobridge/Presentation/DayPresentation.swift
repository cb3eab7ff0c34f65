import Foundation
import Model
import Store

/// A Day's summary as the `days` and `day` views show it.
enum DayPresentation {
    /// The columns of the `days` table.
    static func table(_ days: [DaySummary], unit: GlucoseUnit = .milligramsPerDeciliter) -> TextTable {
        var table = TextTable([
            ("day", .left), ("readings", .right), ("low", .right), ("avg", .right), ("high", .right),
            ("in range", .right), ("hypo", .left), ("hyper", .left), ("exercise", .left), ("stress", .left),
            ("illness", .left), ("favourite", .left),
        ])
        for day in days {
            func flag(_ value: Bool) -> String { value ? "yes" : "-" }
            table.append([
                day.date.description, String(day.glucoseCount), glucose(day.low, unit), glucose(day.average, unit), glucose(day.high, unit),
                percent(day.timeInRange), flag(day.hadHypo), flag(day.hadHyper), flag(day.hadExercise),
                flag(day.hadStress), flag(day.hadIllness), flag(day.isFavourite),
            ])
        }
        return table
    }

    /// One line: `23 readings, low 79 / avg 150 / high 224 mg/dL, 70% in range; 45 g carbs, …; hyper, favourite`.
    static func line(_ day: DaySummary, unit: GlucoseUnit = .milligramsPerDeciliter) -> String {
        var parts: [String] = []
        if day.glucoseCount == 0 {
            parts.append("no glucose readings")
        } else {
            parts.append(
                "\(day.glucoseCount) reading\(day.glucoseCount == 1 ? "" : "s"), low \(glucose(day.low, unit)) / avg "
                    + "\(glucose(day.average, unit)) / high \(glucose(day.high, unit)) \(unit.rawValue), \(percent(day.timeInRange)) in range")
        }
        parts.append("\(Format.number(day.carbs)) g carbs, \(Format.number(day.protein)) g protein, \(Format.number(day.fat)) g fat")
        let flags = [
            (day.hadHypo, "hypo"), (day.hadHyper, "hyper"), (day.hadExercise, "exercise"), (day.hadStress, "stress"),
            (day.hadIllness, "illness"), (day.isFavourite, "favourite"),
        ].filter(\.0).map(\.1)
        if !flags.isEmpty { parts.append(flags.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }

    /// A value in mg/dL shown in `unit`; `-` when there is none.
    static func glucose(_ mgdl: Double?, _ unit: GlucoseUnit) -> String { mgdl.map { Format.glucose($0, unit: unit) } ?? "-" }

    static func percent(_ share: Double?) -> String { share.map { "\(Int(($0 * 100).rounded()))%" } ?? "-" }
}

/// A Day's summary as a JSON object.
struct DayJSON: Encodable, Equatable {
    var date: String
    var readings: Int
    var low: Double?
    var average: Double?
    var high: Double?
    /// The share of readings in range, 0…1.
    var timeInRange: Double?
    /// Readings per tag (`hypo-l2`, `hypo-l1`, `in-range`, `hyper-l1`, `hyper-l2`).
    var tagCounts: [String: Int]
    var carbs: Double
    var protein: Double
    var fat: Double
    var hadHypo: Bool
    var hadHyper: Bool
    var hadExercise: Bool
    var hadStress: Bool
    var hadIllness: Bool
    var favourite: Bool

    init(_ day: DaySummary) {
        date = day.date.description
        readings = day.glucoseCount
        low = day.low
        average = day.average
        high = day.high
        timeInRange = day.timeInRange
        tagCounts = Dictionary(uniqueKeysWithValues: day.tagCounts.map { ($0.key.rawValue, $0.value) })
        carbs = day.carbs
        protein = day.protein
        fat = day.fat
        hadHypo = day.hadHypo
        hadHyper = day.hadHyper
        hadExercise = day.hadExercise
        hadStress = day.hadStress
        hadIllness = day.hadIllness
        favourite = day.isFavourite
    }

    // Optional values are written as null rather than left out: every Day has the same keys.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(date, forKey: .date)
        try container.encode(readings, forKey: .readings)
        try container.encode(low, forKey: .low)
        try container.encode(average, forKey: .average)
        try container.encode(high, forKey: .high)
        try container.encode(timeInRange, forKey: .timeInRange)
        try container.encode(tagCounts, forKey: .tagCounts)
        try container.encode(carbs, forKey: .carbs)
        try container.encode(protein, forKey: .protein)
        try container.encode(fat, forKey: .fat)
        try container.encode(hadHypo, forKey: .hadHypo)
        try container.encode(hadHyper, forKey: .hadHyper)
        try container.encode(hadExercise, forKey: .hadExercise)
        try container.encode(hadStress, forKey: .hadStress)
        try container.encode(hadIllness, forKey: .hadIllness)
        try container.encode(favourite, forKey: .favourite)
    }

    private enum CodingKeys: String, CodingKey {
        case date, readings, low, average, high, timeInRange, tagCounts, carbs, protein, fat
        case hadHypo, hadHyper, hadExercise, hadStress, hadIllness, favourite
    }
}
