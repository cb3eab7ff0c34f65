import GRDB
import Model

extension SharedStore {
    /// The most recent import of every source, newest first.
    public func latestImportRuns() throws(StoreError) -> [ImportRun] {
        try read { db in
            try Self.fetchImportRuns(db, where: "r.id IN (SELECT MAX(id) FROM import_run GROUP BY source_id)")
        }
    }
}
