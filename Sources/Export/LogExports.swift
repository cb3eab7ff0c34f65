import Foundation
import Model
import Store

/// The exports of the logs entered in the app or on the command line, and of Days. Columns are
/// documented in README.md and never renamed.
package enum InsulinExport {
    package static let columns = ["time", "day", "units", "id"]

    package static func fields(_ dose: Stored<InsulinLog>) -> [ExportField] {
        [.instant(dose.time), .text(dose.day.description), .decimal(dose.units, places: 2), .integer(Int(dose.id.rawValue))]
    }
}

package enum MealExport {
    package static let columns = ["time", "day", "name", "carbs_g", "protein_g", "fat_g", "favourite", "id"]

    package static func fields(_ meal: Stored<MealLog>) -> [ExportField] {
        [
            .instant(meal.time), .text(meal.day.description), meal.name.isEmpty ? .null : .text(meal.name),
            .decimal(meal.carbs, places: 1), .decimal(meal.protein, places: 1), .decimal(meal.fat, places: 1),
            .bool(meal.isFavourite), .integer(Int(meal.id.rawValue)),
        ]
    }
}

/// Illness and stress episodes: start, end (empty while open) and length.
package enum EpisodeExport {
    package static let columns = ["start", "end", "day", "duration_min", "open", "id"]

    package static func fields<Episode: EpisodeEntry>(_ episode: Stored<Episode>) -> [ExportField] {
        [
            .instant(episode.start), episode.end.map { .instant($0) } ?? .null,
            .text(episode.day.description), episode.end.map { .decimal($0.timeIntervalSince(episode.start) / 60, places: 1) } ?? .null,
            .bool(episode.end == nil), .integer(Int(episode.id.rawValue)),
        ]
    }
}

/// One row per Day, as `days` shows it.
package enum DayExport {
    package static let columns = [
        "day", "readings", "low_mgdl", "average_mgdl", "high_mgdl", "time_in_range_percent", "hypo", "hyper", "exercise",
        "stress", "illness", "favourite", "carbs_g", "protein_g", "fat_g",
    ]

    package static func fields(_ day: DaySummary) -> [ExportField] {
        [
            .text(day.date.description), .integer(day.glucoseCount), day.low.map(ExportField.mgdl) ?? .null,
            day.average.map { .decimal($0, places: 1) } ?? .null, day.high.map(ExportField.mgdl) ?? .null,
            day.timeInRange.map { .decimal($0 * 100, places: 1) } ?? .null, .bool(day.hadHypo), .bool(day.hadHyper),
            .bool(day.hadExercise), .bool(day.hadStress), .bool(day.hadIllness), .bool(day.isFavourite),
            .decimal(day.carbs, places: 1), .decimal(day.protein, places: 1), .decimal(day.fat, places: 1),
        ]
    }
}

/// What a Nightscout server's REST API v1 takes (`POST /api/v1/entries`, `POST /api/v1/treatments`;
/// github.com/nightscout/cgm-remote-monitor): CGM readings as `sgv` entries, fingersticks as
/// `mbg` entries, and meals, insulin and exercise as careportal treatments.
///
/// `sgv` and `mbg` are whole mg/dL, Nightscout's convention: its entries API types both
/// fields with `parseInt` when it reads a query (`lib/server/entries.js`, `query_for`), so a
/// `find[sgv][$lt]=70` filter compares whole numbers, and the uploaders it was built for send
/// whole mg/dL. A fractional reading is rounded to the nearest whole mg/dL there (69.6 becomes
/// 70); the exact value stays in the store, the CSV and JSON exports and the central database.
package enum NightscoutExport {
    package static let enteredBy = "glucobridge"

    /// Nightscout's direction names: the trend's own name, but for its two non-arrow states.
    package static func direction(_ trend: Trend?) -> String {
        switch trend {
        case nil: "NONE"
        case .notComputable: "NOT COMPUTABLE"
        case .rateOutOfRange: "RATE OUT OF RANGE"
        case let trend?: trend.rawValue
        }
    }

    package static func treatment(_ eventType: String, at time: Date, _ fields: [String: ExportField]) -> [String: ExportField] {
        fields.merging(["eventType": .text(eventType), "created_at": .instant(time, milliseconds: true), "enteredBy": .text(enteredBy)]) { $1 }
    }

    package static func treatment(_ dose: Stored<InsulinLog>) -> [String: ExportField] {
        treatment("Correction Bolus", at: dose.time, ["insulin": .decimal(dose.units, places: 2)])
    }

    package static func treatment(_ meal: Stored<MealLog>) -> [String: ExportField] {
        var fields: [String: ExportField] = ["carbs": .decimal(meal.carbs, places: 1)]
        if meal.protein > 0 { fields["protein"] = .decimal(meal.protein, places: 1) }
        if meal.fat > 0 { fields["fat"] = .decimal(meal.fat, places: 1) }
        if !meal.name.isEmpty { fields["notes"] = .text(meal.name) }
        return treatment("Carb Correction", at: meal.time, fields)
    }

    package static func treatment(_ session: Stored<ExerciseLog>) -> [String: ExportField] {
        treatment(
            "Exercise", at: session.time,
            [
                "duration": .decimal(session.duration / 60, places: 1), "notes": .text("\(session.name) (\(session.intensity.rawValue))"),
            ])
    }
}
