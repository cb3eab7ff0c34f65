import Foundation
import GRDB
import Model
import Pipeline

/// What `SharedStore.save(glucose:activity:)` did: one summary per batch, in the order given.
public struct CombinedImportSummary: Sendable {
    public var glucose: [ImportSummary]
    public var activity: [ActivityImportSummary]
}

extension SharedStore {
    /// Writes everything one import read — the glucose batches of every service and the activity
    /// batches (minutes, sessions, a meter's exercise notes) — in ONE transaction: each batch as
    /// ``save(_:)-(ImportBatch)`` and ``save(_:)-(ActivityBatch)`` would write it, each with
    /// its own `import_run` row. Every batch is checked before anything is written; any failure
    /// rolls all of them back.
    package func save(glucose: [ImportBatch], activity: [ActivityBatch]) throws(StoreError) -> CombinedImportSummary {
        let zone = timeZone
        var validated: [(ValidatedBatch, GlucoseRows)] = []
        for batch in glucose {
            let checked = try ValidatedBatch(batch)
            validated.append((checked, GlucoseRows(checked.readings, timeZone: zone)))
        }
        var checked: [CheckedActivityBatch] = []
        for batch in activity { checked.append(try CheckedActivityBatch(batch, zone)) }
        return try writeImport { db in
            var summary = CombinedImportSummary(glucose: [], activity: [])
            for (batch, rows) in validated {
                var writer = GlucoseImportWriter(db: db, days: rows.days)
                summary.glucose.append(try writer.write(batch, rows))
            }
            for batch in checked {
                summary.activity.append(try Self.insert(batch, zone: zone, db))
            }
            return summary
        }
    }
}
