import Foundation
import GRDB
import Model

extension Migrations {
    /// The family of a Bluetooth device's activity source since `v13-ble-activity-source`: the
    /// bus, whatever activity services the device serves (they are listed in `source_service`).
    static let bluetoothActivityFamily = "ble"

    /// The activity families glucobridge stored before `v13-ble-activity-source`, alone or joined
    /// with `+` (`ble-hrs+huami`): the Bluetooth activity services it had drivers for.
    static let bluetoothActivityServices: Set<String> = ["ble-hrs", "ble-csc", "ble-rsc", "ble-ftms", "huami", "infinitime"]

    static let v13 = """
        CREATE TABLE source_service (
            source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
            service TEXT NOT NULL CHECK (service <> ''),
            PRIMARY KEY (source_id, service)
        ) WITHOUT ROWID;
        """

    /// A Bluetooth device's activity was stored under a family joining its activity services
    /// (`ble-hrs+huami`), so one device could have two sources (one stored before a service
    /// appeared, one after). Each such source becomes the device's one `ble` source, its
    /// services listed in `source_service`; two sources of one device are merged into the older:
    ///
    /// - import runs and exercise logs move to it; an exercise log both hold (same device record
    ///   key) is kept once, with a favourite mark either had;
    /// - cursors keep the furthest index of each stream;
    /// - an activity minute both hold is merged from the parts each saw (as a minute split between
    ///   two sessions is), or, when either was stored without parts, the one made of more samples
    ///   is kept; the minutes decided so are written by one import run of the merge, so that a
    ///   sync sends them again.
    ///
    /// The count is kept in `migration_note`.
    static func mergeBluetoothActivitySources(_ db: Database) throws {
        let rows = try Row.fetchAll(db, sql: "SELECT id, family, serial FROM source ORDER BY id")
        var bySerial: [String: [(id: Int64, services: [String])]] = [:]
        var serials: [String] = []
        for row in rows {
            let family: String = row["family"]
            let services = family.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
            guard services.allSatisfy(bluetoothActivityServices.contains) else { continue }
            let serial: String = row["serial"]
            if bySerial[serial] == nil { serials.append(serial) }
            bySerial[serial, default: []].append((row["id"], services))
        }
        var renamed = 0
        var merged = 0
        var minutesDecided = 0
        for serial in serials {
            guard let sources = bySerial[serial], let survivor = sources.first else { continue }
            for other in sources.dropFirst() {
                minutesDecided += try merge(other.id, into: survivor.id, db)
                merged += 1
            }
            // The device's model, as the older source named it, else as the first merged one did.
            let model = try String.fetchOne(
                db,
                sql:
                    "SELECT model FROM source WHERE id IN (\(sources.map { "\($0.id)" }.joined(separator: ", "))) AND model IS NOT NULL ORDER BY id LIMIT 1"
            )
            try db.execute(
                sql: "UPDATE source SET family = ?, model = ? WHERE id = ?", arguments: [bluetoothActivityFamily, model, survivor.id])
            for other in sources.dropFirst() {
                try db.execute(sql: "DELETE FROM source WHERE id = ?", arguments: [other.id])
            }
            for service in Set(sources.flatMap(\.services)) {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO source_service (source_id, service) VALUES (?, ?)", arguments: [survivor.id, service])
            }
            renamed += 1
        }
        guard renamed > 0 else { return }
        try db.execute(
            sql: "INSERT INTO migration_note (identifier, applied_at, changed, note) VALUES (?, ?, ?, ?)",
            arguments: [
                "v13-ble-activity-source", StoreTime.string(Date()), renamed,
                "\(renamed) Bluetooth device\(renamed == 1 ? "'s" : "s'") activity now stored under the family '\(bluetoothActivityFamily)', "
                    + "its services listed in source_service; \(merged) source\(merged == 1 ? "" : "s") of a device merged into "
                    + "its older one (\(minutesDecided) activity minute\(minutesDecided == 1 ? "" : "s") both held, merged and sent again by the next sync)",
            ])
    }

    /// Moves everything of source `other` to source `survivor` (same device), then leaves
    /// `other` without rows. Returns the number of activity minutes both held.
    private static func merge(_ other: Int64, into survivor: Int64, _ db: Database) throws -> Int {
        try db.execute(sql: "UPDATE import_run SET source_id = ? WHERE source_id = ?", arguments: [survivor, other])
        try db.execute(
            sql: """
                INSERT INTO source_cursor (source_id, stream, last_record_index, import_run_id)
                SELECT ?, stream, last_record_index, import_run_id FROM source_cursor WHERE source_id = ? AND true
                ON CONFLICT (source_id, stream) DO UPDATE SET
                    last_record_index = excluded.last_record_index, import_run_id = excluded.import_run_id
                WHERE excluded.last_record_index > source_cursor.last_record_index
                """,
            arguments: [survivor, other])
        try db.execute(sql: "DELETE FROM source_cursor WHERE source_id = ?", arguments: [other])

        // Exercise logs: a favourite mark on the copy that goes is kept on the one that stays.
        try db.execute(
            sql: """
                UPDATE exercise AS kept SET favourite_id = (
                    SELECT gone.favourite_id FROM exercise AS gone
                    WHERE gone.source_id = ? AND gone.device_record_key = kept.device_record_key)
                WHERE kept.source_id = ? AND kept.favourite_id IS NULL AND EXISTS (
                    SELECT 1 FROM exercise AS gone
                    WHERE gone.source_id = ? AND gone.device_record_key = kept.device_record_key AND gone.favourite_id IS NOT NULL)
                """,
            arguments: [other, survivor, other])
        try db.execute(
            sql: """
                DELETE FROM exercise WHERE source_id = ? AND device_record_key IN (
                    SELECT device_record_key FROM exercise WHERE source_id = ?)
                """,
            arguments: [other, survivor])
        try db.execute(sql: "UPDATE exercise SET source_id = ? WHERE source_id = ?", arguments: [survivor, other])

        // Activity minutes only one source holds move with their parts.
        let onlyOther = "source_id = ? AND minute NOT IN (SELECT minute FROM activity_minute WHERE source_id = ?)"
        try db.execute(
            sql: "UPDATE activity_minute_part SET source_id = ? WHERE \(onlyOther)", arguments: [survivor, other, survivor])
        try db.execute(sql: "UPDATE activity_minute SET source_id = ? WHERE \(onlyOther)", arguments: [survivor, other, survivor])

        let shared = try Row.fetchAll(
            db,
            sql: """
                SELECT gone.minute, gone.sample_count AS gone_samples, kept.sample_count AS kept_samples
                FROM activity_minute AS gone JOIN activity_minute AS kept ON kept.minute = gone.minute AND kept.source_id = ?
                WHERE gone.source_id = ? ORDER BY gone.minute
                """,
            arguments: [survivor, other])
        guard !shared.isEmpty else { return 0 }
        let runID = try mergeRun(survivor, minutes: shared.count, db)
        for row in shared {
            let minute: String = row["minute"]
            let goneParts = try ActivityMinuteParts.parts(sourceID: other, minute: minute, db)
            let keptParts = try ActivityMinuteParts.parts(sourceID: survivor, minute: minute, db)
            if !goneParts.isEmpty && !keptParts.isEmpty {
                let start = try Decode.instant(row, 0, "activity_minute.minute")
                for part in goneParts {
                    _ = try ActivityMinuteParts.store(part, of: start, sourceID: survivor, runID: runID, db)
                }
            } else if (row["gone_samples"] as Int) > (row["kept_samples"] as Int) {
                try db.execute(sql: "DELETE FROM activity_minute_part WHERE source_id = ? AND minute = ?", arguments: [survivor, minute])
                try db.execute(sql: "DELETE FROM activity_minute WHERE source_id = ? AND minute = ?", arguments: [survivor, minute])
                try db.execute(
                    sql: "UPDATE activity_minute_part SET source_id = ? WHERE source_id = ? AND minute = ?", arguments: [survivor, other, minute])
                try db.execute(
                    sql: "UPDATE activity_minute SET source_id = ? WHERE source_id = ? AND minute = ?", arguments: [survivor, other, minute])
            }
            try db.execute(sql: "DELETE FROM activity_minute_part WHERE source_id = ? AND minute = ?", arguments: [other, minute])
            try db.execute(sql: "DELETE FROM activity_minute WHERE source_id = ? AND minute = ?", arguments: [other, minute])
            try db.execute(
                sql: "UPDATE activity_minute SET import_run_id = ? WHERE source_id = ? AND minute = ?", arguments: [runID, survivor, minute])
        }
        return shared.count
    }

    /// The import run that writes the minutes a merge decided: the merged device's latest run
    /// repeated (its mode and clock), with no records of its own and a note saying why it exists.
    private static func mergeRun(_ source: Int64, minutes: Int, _ db: Database) throws -> Int64 {
        let now = StoreTime.string(Date())
        try db.execute(
            sql: """
                INSERT INTO import_run (
                    source_id, started_at, finished_at, mode, origin, records_read, records_added,
                    records_already_stored, records_skipped, host_time, device_time, clock_offset_seconds,
                    time_method, events_json, notes_json)
                SELECT source_id, ?, ?, mode, origin, 0, 0, 0, 0, host_time, device_time, clock_offset_seconds,
                       time_method, '[]', json_array(?)
                FROM import_run WHERE source_id = ? ORDER BY id DESC LIMIT 1
                """,
            arguments: [
                now, now,
                "store migration v13-ble-activity-source: \(minutes) activity minute\(minutes == 1 ? "" : "s") of this device stored "
                    + "under two of its sources merged into one",
                source,
            ])
        guard db.changesCount == 1 else {
            throw StoreError.database("the Bluetooth activity source \(source) holds activity minutes but no import run")
        }
        return db.lastInsertedRowID
    }
}
