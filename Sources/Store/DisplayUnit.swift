import Foundation
import GRDB
import Model

extension SharedStore {
    /// The unit views, the report and glucose input use when none is given (default mg/dL).
    public func displayUnit() throws(StoreError) -> GlucoseUnit {
        try read { db in
            let text = try String.fetchOne(db, sql: "SELECT display_unit FROM store_config WHERE id = 1")
            return text.flatMap(GlucoseUnit.init(rawValue:)) ?? .milligramsPerDeciliter
        }
    }

    /// Keeps `unit` as the display unit. Stored values do not change.
    public func setDisplayUnit(_ unit: GlucoseUnit) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE store_config SET display_unit = ? WHERE id = 1", arguments: [unit.rawValue])
        }
    }
}
