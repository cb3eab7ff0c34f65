import Foundation
import GRDB
import Model

/// What one `SharedStore.save(_:)` (an import batch) call did.
public struct ImportSummary: Sendable, Equatable, CustomStringConvertible {
    /// The `import_run` row written for this import.
    public var runID: Int64
    /// Records the device returned, whether readings or not.
    public var recordsRead: Int
    /// Readings stored by this import.
    public var added: Int
    /// Readings offered that the store already held (same source and record key), including a
    /// repeat of a reading within the batch.
    public var alreadyStored: Int
    /// Records read that were not offered as readings: `recordsRead − glucose.count`.
    public var skipped: Int
    /// The Days that received new readings, ascending.
    public var days: [DayDate]
    /// The earliest and latest instants among the readings offered; nil when none were.
    public var firstReading: Date?
    public var lastReading: Date?

    public var description: String {
        var text = "\(added) new, \(alreadyStored) already stored"
        if skipped > 0 { text += ", \(skipped) not readings" }
        return text
    }
}

/// An `import_run` row: one past import and its counts.
public struct ImportRun: Sendable, Equatable {
    public var id: Int64
    public var source: DeviceSource
    public var startedAt: Date
    public var finishedAt: Date
    public var mode: ImportMode
    public var origin: String?
    public var recordsRead: Int
    public var added: Int
    public var alreadyStored: Int
    public var skipped: Int
    public var clock: ClockReport
    public var events: [ImportEvent]
    public var notes: [String]
}

extension SharedStore {
    /// The most recent import of every source, newest first.
    public func latestImportRuns() throws(StoreError) -> [ImportRun] {
        try read { db in
            try Self.fetchImportRuns(db, where: "r.id IN (SELECT MAX(id) FROM import_run GROUP BY source_id)")
        }
    }

    /// The `limit` most recent imports, newest first.
    public func importRuns(limit: Int) throws(StoreError) -> [ImportRun] {
        try read { db in try Self.fetchImportRuns(db, limit: max(limit, 0)) }
    }

    /// The imports with `condition` (on `import_run r`), newest first, at most `limit` of them
    /// (all when `limit` is nil).
    static func fetchImportRuns(_ db: Database, where condition: String = "1", limit: Int? = nil) throws -> [ImportRun] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT r.id, s.family, s.serial, s.model, r.started_at, r.finished_at, r.mode, r.origin,
                       r.records_read, r.records_added, r.records_already_stored, r.records_skipped,
                       r.host_time, r.device_time, r.clock_offset_seconds, r.time_method,
                       r.events_json, r.notes_json
                FROM import_run r JOIN source s ON s.id = r.source_id
                WHERE \(condition)
                ORDER BY r.id DESC LIMIT ?
                """,
            arguments: [limit ?? -1]
        ).map(importRun)
    }

    static func importRun(_ row: Row) throws -> ImportRun {
        var clock = ClockReport(
            hostTime: try Decode.optionalInstant(row, 12, "import_run.host_time"),
            deviceTime: try Decode.optionalInstant(row, 13, "import_run.device_time"),
            method: try Decode.value(row, 15, "import_run.time_method"))
        clock.offsetSeconds = row[14]
        let decoder = JSONDecoder()
        let eventsJSON: String = row[16]
        let notesJSON: String = row[17]
        return ImportRun(
            id: row[0], source: DeviceSource(family: DeviceFamily(row[1] as String), serial: row[2], model: row[3]),
            startedAt: try Decode.instant(row, 4, "import_run.started_at"),
            finishedAt: try Decode.instant(row, 5, "import_run.finished_at"),
            mode: try Decode.value(row, 6, "import_run.mode"), origin: row[7], recordsRead: row[8], added: row[9], alreadyStored: row[10],
            skipped: row[11], clock: clock,
            events: try decoder.decode([ImportEvent].self, from: Data(eventsJSON.utf8)),
            notes: try decoder.decode([String].self, from: Data(notesJSON.utf8)))
    }
}
