import Foundation
import GRDB
import Model

extension SharedStore {
    /// Writes one import in one transaction.
    ///
    /// The batch is validated first (see ``StoreError/invalidReading(recordKey:reason:)``); then,
    /// in one transaction: the source is inserted or updated, Days are created on demand, the
    /// readings are inserted with tags from the thresholds in force (a reading whose source and
    /// record key are already stored is left as it is and counted as already stored), the cursors
    /// are raised (never lowered), and an `import_run` row keeps the counts. Any failure rolls
    /// everything back.
    public func record(_ batch: ImportBatch) throws(StoreError) -> ImportSummary {
        let validated = try ValidatedBatch(batch)
        let timeZone = timeZone
        return try write { db in
            var recorder = Recorder(db: db, timeZone: timeZone)
            return try recorder.record(validated)
        }
    }
}

/// The SQL of one import, inside the write transaction.
struct Recorder {
    let db: Database
    var days: DayResolver

    init(db: Database, timeZone: TimeZone) {
        self.db = db
        self.days = DayResolver(timeZone: timeZone)
    }

    mutating func record(_ validated: ValidatedBatch) throws -> ImportSummary {
        let batch = validated.batch
        let thresholds = try SharedStore.thresholds(db)
        let sourceID = try ImportRows.upsertSource(batch.source, db)
        let runID = try ImportRows.insertRun(
            sourceID: sourceID, startedAt: batch.startedAt, mode: batch.mode, origin: batch.origin,
            recordsRead: batch.recordsRead, skipped: batch.recordsRead - batch.glucose.count, clock: batch.clock,
            events: batch.events, notes: batch.notes, db)

        let insert = try db.cachedStatement(sql: """
            INSERT INTO glucose (day_id, time, mgdl, unit, tag, flag, kind, trend, noise, source_id,
                                 device_record_key, device_time, device_display_time, import_run_id, note)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (source_id, device_record_key) DO NOTHING
            """)
        var added = 0
        var daysWithNewRows: Set<DayDate> = []
        for reading in validated.readings {
            let date = days.date(of: reading.time)
            let dayID = try days.id(of: date, in: db)
            try insert.execute(arguments: [
                dayID, StoreTime.string(reading.time), reading.mgdl, reading.unit.rawValue,
                thresholds.storeTag(mgdl: reading.mgdl, unit: reading.unit).rawValue,
                reading.flag?.rawValue, reading.kind.rawValue, reading.trend?.rawValue, reading.noise,
                sourceID, reading.recordKey, reading.deviceTime, reading.displayTime, runID, reading.note,
            ])
            if db.changesCount > 0 {
                added += 1
                daysWithNewRows.insert(date)
            }
        }
        // A Day created for a reading that turned out to be stored already (under another time)
        // holds nothing: remove it.
        for (date, id) in days.created where !daysWithNewRows.contains(date) {
            try db.execute(sql: "DELETE FROM day WHERE id = ?", arguments: [id])
        }
        try raiseCursors(batch.cursors, sourceID: sourceID, runID: runID)

        let summary = ImportSummary(
            runID: runID,
            recordsRead: batch.recordsRead,
            added: added,
            alreadyStored: validated.readings.count - added + validated.repeats,
            skipped: validated.skipped,
            days: daysWithNewRows.sorted(),
            firstReading: batch.glucose.map(\.time).min(),
            lastReading: batch.glucose.map(\.time).max())
        try ImportRows.finish(runID, added: summary.added, alreadyStored: summary.alreadyStored, db)
        return summary
    }

    private func raiseCursors(_ cursors: [String: Int64], sourceID: Int64, runID: Int64) throws {
        let upsert = try db.cachedStatement(sql: """
            INSERT INTO source_cursor (source_id, stream, last_record_index, import_run_id)
            VALUES (?, ?, ?, ?)
            ON CONFLICT (source_id, stream) DO UPDATE
            SET last_record_index = excluded.last_record_index, import_run_id = excluded.import_run_id
            WHERE excluded.last_record_index > source_cursor.last_record_index
            """)
        for (stream, index) in cursors.sorted(by: { $0.key < $1.key }) {
            try upsert.execute(arguments: [sourceID, stream, index, runID])
        }
    }
}
