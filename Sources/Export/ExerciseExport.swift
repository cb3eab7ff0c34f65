import Foundation
import Store

/// The exercise export: one row per session, app-entered or imported. Columns are documented in
/// README.md and never renamed.
package enum ExerciseExport {
    package static let columns = [
        "start", "day", "name", "duration_min", "intensity", "source", "record_key", "distance_m", "energy_kj",
    ]

    package static func fields(_ session: Stored<ExerciseLog>) -> [ExportField] {
        [
            .instant(session.time), .text(session.day.description), .text(session.name),
            .decimal(session.duration / 60, places: 1), .text(session.intensity.rawValue),
            .optional(session.source.map { "\($0.family):\($0.serial)" }), .optional(session.recordKey),
            session.distance.map(ExportField.exact) ?? .null, session.energy.map(ExportField.exact) ?? .null,
        ]
    }
}
