import GRDB
import Model

extension SharedStore {
    /// The most recent import of every source, newest first.
    public func latestImportRuns() throws(StoreError) -> [ImportRun] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT r.id, s.family, s.serial, s.model, r.started_at, r.finished_at, r.mode, r.origin,
                           r.records_read, r.records_added, r.records_already_stored, r.records_skipped,
                           r.host_time, r.device_time, r.clock_offset_seconds, r.time_method,
                           r.events_json, r.notes_json
                    FROM import_run r JOIN source s ON s.id = r.source_id
                    WHERE r.id IN (SELECT MAX(id) FROM import_run GROUP BY source_id)
                    ORDER BY r.id DESC
                    """
            ).map(Self.importRun)
        }
    }
}
