import Foundation
import GRDB
import Importer
import Model
import Store
import TestSupport
import XCTest

/// A fresh store file in its own folder, in `zone`.
package func freshStore(zone: String) throws -> SharedStore {
    let folder = try Fixtures.temporaryDirectory()
    return try SharedStore(path: folder.appendingPathComponent("store.sqlite").path, timeZone: TimeZone(identifier: zone)!)
}

/// Row counts of every table an import writes, to show a failed import changed nothing.
package func tableCounts(_ store: SharedStore) throws -> [String: Int] {
    try store.database.read { db in
        var counts: [String: Int] = [:]
        for table in ["day", "glucose", "source", "import_run", "source_cursor", "activity_minute", "activity_minute_part", "exercise"] {
            counts[table] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)")
        }
        return counts
    }
}

/// What ``storeContent(_:_:)`` reads: each kind of row an import writes.
package enum StoreContentPart: CaseIterable, Sendable {
    case readings, activityMinutes, exercise, cursors, importRuns

    var sql: String {
        switch self {
        case .readings:
            "SELECT d.date, g.time, g.mgdl, g.unit, g.tag, g.flag, g.kind, g.device_record_key, g.device_time, s.family, s.serial, s.model "
                + "FROM glucose g JOIN day d ON d.id = g.day_id JOIN source s ON s.id = g.source_id ORDER BY g.time, g.device_record_key"
        case .activityMinutes:
            "SELECT s.family, s.serial, m.minute, m.heart_rate_bpm, m.step_cadence_spm, m.crank_cadence_rpm, m.speed_mps, "
                + "m.distance_m, m.energy_kj, m.gait, m.sensors, m.sample_count FROM activity_minute m JOIN source s ON s.id = m.source_id "
                + "ORDER BY m.minute, s.family"
        case .exercise:
            "SELECT d.date, e.time, e.name, e.duration_seconds, e.intensity, e.device_record_key, s.family, e.distance_m, e.energy_kj FROM exercise e "
                + "JOIN day d ON d.id = e.day_id LEFT JOIN source s ON s.id = e.source_id ORDER BY e.time"
        case .cursors:
            "SELECT s.family, c.stream, c.last_record_index FROM source_cursor c JOIN source s ON s.id = c.source_id ORDER BY s.family, c.stream"
        case .importRuns:
            "SELECT s.family, r.mode, r.records_read, r.records_added, r.records_already_stored, r.records_skipped, r.host_time, "
                + "r.device_time, r.clock_offset_seconds, r.time_method, r.events_json, r.notes_json "
                + "FROM import_run r JOIN source s ON s.id = r.source_id ORDER BY r.id"
        }
    }
}

/// The store's rows as text, without ids, run ids and import times: what two imports of the
/// same session must agree on (by default every part; a live import and a replay of it agree on
/// all but their cursors' and runs' modes and times, so they compare the rows alone).
package func storeContent(_ store: SharedStore, _ parts: [StoreContentPart] = StoreContentPart.allCases) throws -> [String] {
    try store.database.read { db in
        var lines: [String] = []
        for part in parts {
            for row in try Row.fetchAll(db, sql: part.sql) {
                lines.append(row.databaseValues.map { "\($0)" }.joined(separator: " | "))
            }
        }
        return lines
    }
}

/// An instant from `2024-01-15T08:00:00.449Z` text.
package func instant(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = text.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
    return formatter.date(from: text)!
}

/// `2024-01-15T08:00:00.449Z` for an instant, to the millisecond.
package func iso(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: date)
}
