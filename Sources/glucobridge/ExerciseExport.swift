import Foundation
import Store

/// The exercise export: one row per session, app-entered or imported. Columns are documented in
/// docs/commands.md and never renamed.
enum ExerciseExport {
    static let columns = ["start", "day", "name", "duration_min", "intensity", "source", "record_key"]

    static func csv(_ sessions: [Stored<ExerciseLog>]) -> String {
        ExportTable.csv(columns: columns, rows: sessions.map(fields))
    }

    static func json(_ sessions: [Stored<ExerciseLog>]) throws -> Data {
        try ExportTable.json(columns: columns, rows: sessions.map(fields))
    }

    static func fields(_ session: Stored<ExerciseLog>) -> [ExportField] {
        [
            .text(GlucoseExport.timestamp(session.time)), .text(session.day.description), .text(session.name),
            .decimal(session.duration / 60, places: 1), .text(session.intensity.rawValue),
            .optional(session.source.map { "\($0.family):\($0.serial)" }), .optional(session.recordKey),
        ]
    }
}
