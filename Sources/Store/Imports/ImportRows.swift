import Foundation
import GRDB
import Model

/// The `source` and `import_run` rows every kind of import writes, inside its transaction.
enum ImportRows {
    /// The id of `source`'s row, inserted when missing; a known model name is kept.
    static func upsertSource(_ source: DeviceSource, _ db: Database) throws -> Int64 {
        let id = try Int64.fetchOne(
            db,
            sql: """
                INSERT INTO source (family, serial, model) VALUES (?, ?, ?)
                ON CONFLICT (family, serial) DO UPDATE SET model = coalesce(excluded.model, source.model)
                RETURNING id
                """,
            arguments: [source.family.rawValue, source.serial, source.model])
        guard let id else { throw StoreError.database("the source \(source) could not be stored") }
        return id
    }

    /// Adds `services` to the services of source `sourceID` (`source_service`) that are not there.
    static func addServices(_ services: [DeviceFamily], sourceID: Int64, _ db: Database) throws {
        guard !services.isEmpty else { return }
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO source_service (source_id, service) VALUES (?, ?)")
        for service in services {
            try insert.execute(arguments: [sourceID, service.rawValue])
        }
    }

    /// Inserts an `import_run` row with no records added yet; ``finish(_:added:alreadyStored:_:)``
    /// completes it.
    static func insertRun(
        sourceID: Int64, startedAt: Date, mode: ImportMode, origin: String?, recordsRead: Int, skipped: Int,
        clock: ClockReport, events: [ImportEvent], notes: [String], _ db: Database
    ) throws -> Int64 {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let events = String(decoding: try encoder.encode(events), as: UTF8.self)
        let notes = String(decoding: try encoder.encode(notes), as: UTF8.self)
        let started = StoreTime.string(startedAt)
        try db.execute(
            sql: """
                INSERT INTO import_run (
                    source_id, started_at, finished_at, mode, origin, records_read, records_added,
                    records_already_stored, records_skipped, host_time, device_time,
                    clock_offset_seconds, time_method, events_json, notes_json)
                VALUES (?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                sourceID, started, started, mode.rawValue, origin, recordsRead, skipped,
                clock.hostTime.map(StoreTime.string), clock.deviceTime.map(StoreTime.string),
                clock.offsetSeconds, clock.method.rawValue, events, notes,
            ])
        return db.lastInsertedRowID
    }

    /// Sets the finishing time and the counts of the run `id`.
    static func finish(_ id: Int64, added: Int, alreadyStored: Int, _ db: Database) throws {
        try db.execute(
            sql: """
                UPDATE import_run
                SET finished_at = ?, records_added = ?, records_already_stored = ?
                WHERE id = ?
                """,
            arguments: [StoreTime.string(Date()), added, alreadyStored, id])
    }
}
