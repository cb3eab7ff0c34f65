import Foundation
import GRDB
import GRDBSQLite

/// What a program that copies the store elsewhere (`glucobridge sync`) reads, and the schema that
/// makes it possible (migration `v8-sync-change-log`).
///
/// Two kinds of data, two ways to follow them:
/// - **Device data is append-only** and keyed by (source, device record key): sources, import
///   runs, device glucose readings, activity sessions and their minutes are read from an id cursor
///   (``SyncFeed``), since an import only ever adds rows with larger ids (SQLite has one writer at
///   a time). No trigger runs for an imported row beyond a `WHEN` test on `source_id`. An
///   activity minute that a later import completes (a minute split between two sessions) moves
///   to that import's run, and is read again with it.
/// - **Logs entered in the app** (glucose, insulin, meals, exercise, illness, stress) get a
///   stable `uid` (a random UUID) when they are inserted, by any program, through SQLite triggers;
///   it is never changed and never reused. Every insert, edit and removal of such a log, of a
///   Day (its favourite mark), and of an imported session's favourite mark appends a row to
///   `sync_change`, read from a sequence cursor (``syncChanges(after:limit:)``) and resolved to
///   the current rows (``syncCurrentRows(_:keys:)``): a key with no current row was removed.
extension SharedStore {
    /// The store's own identity, a UUID made once by the migration: a copy made elsewhere keeps
    /// one cursor per store, so that two stores of one person never share a cursor.
    package func syncStoreID() throws(StoreError) -> String {
        try read { db in
            guard let uid = try String.fetchOne(db, sql: "SELECT uid FROM sync_store WHERE id = 1") else {
                throw StoreError.database("the store has no sync identity (table sync_store is empty)")
            }
            return uid
        }
    }

    /// Where the store stands for sync: the largest source, import run, glucose and exercise
    /// ids, the change-log sequence and the glucose thresholds (whose change re-tags rows already
    /// sent). It differs from an earlier value whenever there is something new to sync.
    package func syncWatermark() throws(StoreError) -> [Int64] {
        try read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT (SELECT coalesce(max(id), 0) FROM source), (SELECT coalesce(max(id), 0) FROM import_run),
                           (SELECT coalesce(max(id), 0) FROM glucose), (SELECT coalesce(max(id), 0) FROM exercise),
                           (SELECT coalesce(max(seq), 0) FROM sync_change)
                    """)
            let thresholds = try Self.thresholds(db)
            return (0..<5).map { row?[$0] ?? 0 }
                + [thresholds.veryLow, thresholds.low, thresholds.high, thresholds.veryHigh].map(Int64.init)
        }
    }

    /// Up to `limit` rows of `feed` whose id is greater than `id`, by id (glucose readings with the
    /// thresholds their tags were read under).
    package func syncRows(_ feed: SyncFeed, after id: Int64, limit: Int) throws(StoreError) -> SyncRows {
        try read { db in
            var rows = try SyncRows.fetch(db, sql: feed.query, arguments: [id, limit])
            if feed == .glucoseReadings { rows.thresholds = try Self.thresholds(db) }
            return rows
        }
    }

    /// Up to `limit` glucose rows whose id is greater than `id`, by id, each with what names it on
    /// the server and its tag (`id, family, serial, device_record_key, uid, tag`): device readings
    /// up to id `readingsThrough` (those a sync has sent) and the app's logs. A sync reads them to
    /// bring the server's tags in line after the thresholds changed.
    package func syncTags(after id: Int64, readingsThrough last: Int64, limit: Int) throws(StoreError) -> SyncRows {
        try read { db in
            var rows = try SyncRows.fetch(
                db,
                sql: """
                    SELECT g.id, s.family, s.serial, g.device_record_key, g.uid, g.tag
                    FROM glucose g LEFT JOIN source s ON s.id = g.source_id
                    WHERE g.id > ? AND (g.source_id IS NOT NULL AND g.id <= ? OR g.source_id IS NULL AND g.uid IS NOT NULL)
                    ORDER BY g.id LIMIT ?
                    """,
                arguments: [id, last, limit])
            rows.thresholds = try Self.thresholds(db)
            return rows
        }
    }

    /// The activity minutes written by the import runs with ids in `runs`, by run: each minute
    /// with the run that last wrote it (added it, or completed it with another session's part),
    /// and whether it was `completed` (an earlier run wrote a part of it: a sync may have sent
    /// that part's minute already).
    package func syncActivityMinutes(importRuns runs: ClosedRange<Int64>) throws(StoreError) -> SyncRows {
        try read { db in
            try SyncRows.fetch(
                db,
                sql: """
                    SELECT m.import_run_id AS id, s.family, s.serial, m.minute, m.heart_rate_bpm,
                           m.step_cadence_spm, m.crank_cadence_rpm, m.speed_mps, m.distance_m, m.energy_kj,
                           m.gait, m.sensors, m.sample_count, m.device_activity_kind, m.device_intensity,
                           EXISTS (SELECT 1 FROM activity_minute_part p
                                   WHERE p.source_id = m.source_id AND p.minute = m.minute
                                       AND p.import_run_id < m.import_run_id) AS completed
                    FROM activity_minute m JOIN source s ON s.id = m.source_id
                    WHERE m.import_run_id BETWEEN ? AND ?
                    ORDER BY m.import_run_id, m.source_id, m.minute
                    """,
                arguments: [runs.lowerBound, runs.upperBound])
        }
    }

    /// Up to `limit` entries of the change log after `sequence`, oldest first.
    package func syncChanges(after sequence: Int64, limit: Int) throws(StoreError) -> [SyncChange] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT seq, entity, key FROM sync_change WHERE seq > ? ORDER BY seq LIMIT ?",
                arguments: [sequence, limit]
            ).map { row in
                let text: String = row["entity"]
                guard let entity = SyncEntity(rawValue: text) else {
                    throw StoreError.database("the change log names an unknown kind of row: sync_change.entity = '\(text)'")
                }
                return SyncChange(sequence: row["seq"], entity: entity, key: row["key"])
            }
        }
    }

    /// The rows of `entity` whose keys are among `keys`, as they are now; a key without a row is
    /// one that was removed. The first column, `key`, is the key. Glucose logs come with the
    /// thresholds their tags were read under.
    package func syncCurrentRows(_ entity: SyncEntity, keys: [String]) throws(StoreError) -> SyncRows {
        guard !keys.isEmpty else { return SyncRows(columns: [], rows: []) }
        return try read { db in
            var rows = SyncRows(columns: [], rows: [])
            // SQLite allows 32766 parameters; stay far below.
            for start in stride(from: 0, to: keys.count, by: 500) {
                let chunk = Array(keys[start..<min(start + 500, keys.count)])
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                let part = try SyncRows.fetch(
                    db, sql: entity.currentQuery(keyList: marks), arguments: StatementArguments(chunk))
                rows.columns = part.columns
                rows.rows += part.rows
            }
            if entity == .glucose { rows.thresholds = try Self.thresholds(db) }
            return rows
        }
    }
}

/// One value of a row handed to sync: SQLite's storage classes, without blobs.
package enum SyncValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// Rows for sync: column names, and one value per column for each row.
package struct SyncRows: Sendable, Equatable {
    package var columns: [String]
    package var rows: [[SyncValue]]
    /// For rows with a glucose `tag`: the store's thresholds in the same read, which the tags follow.
    package var thresholds: GlucoseThresholds?

    package init(columns: [String], rows: [[SyncValue]], thresholds: GlucoseThresholds? = nil) {
        self.columns = columns
        self.rows = rows
        self.thresholds = thresholds
    }

    /// The values of column `name` (which must be one of ``columns``).
    package func values(of name: String) -> [SyncValue] {
        guard let index = columns.firstIndex(of: name) else { return [] }
        return rows.map { $0[index] }
    }

    /// The rows of `sql`, each value read from SQLite's statement through its C interface as
    /// GRDB's cursor steps it (no intermediate rows, no generic decoding).
    static func fetch(_ db: Database, sql: String, arguments: StatementArguments) throws -> SyncRows {
        let statement = try db.makeStatement(sql: sql)
        let columns = statement.columnNames
        let sqlite = statement.sqliteStatement
        var rows: [[SyncValue]] = []
        let cursor = try Row.fetchCursor(statement, arguments: arguments)
        while try cursor.next() != nil {
            var values: [SyncValue] = []
            values.reserveCapacity(columns.count)
            for index in 0..<Int32(columns.count) {
                switch sqlite3_column_type(sqlite, index) {
                case SQLITE_NULL: values.append(.null)
                case SQLITE_INTEGER: values.append(.integer(sqlite3_column_int64(sqlite, index)))
                case SQLITE_FLOAT: values.append(.real(sqlite3_column_double(sqlite, index)))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(sqlite, index))
                    let bytes = sqlite3_column_blob(sqlite, index).map { Data(bytes: $0, count: count) } ?? Data()
                    values.append(.text(bytes.base64EncodedString()))
                default:
                    let count = Int(sqlite3_column_bytes(sqlite, index))
                    let text =
                        sqlite3_column_text(sqlite, index).map {
                            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
                        } ?? ""
                    values.append(.text(text))
                }
            }
            rows.append(values)
        }
        return SyncRows(columns: columns, rows: rows)
    }
}

/// An append-only kind of row, read from an id cursor. The first column of every query is `id`.
package enum SyncFeed: String, CaseIterable, Sendable {
    case sources
    case importRuns
    /// Glucose rows from a device (`source_id` set).
    case glucoseReadings
    /// Exercise sessions detected from a device's activity (`source_id` set).
    case activitySessions

    var query: String {
        switch self {
        case .sources:
            return "SELECT id, family, serial, model FROM source WHERE id > ? ORDER BY id LIMIT ?"
        case .importRuns:
            return """
                SELECT r.id, s.family, s.serial, r.started_at, r.finished_at, r.mode, r.origin, r.records_read,
                       r.records_added, r.records_already_stored, r.records_skipped, r.host_time, r.device_time,
                       r.clock_offset_seconds, r.time_method, r.events_json, r.notes_json
                FROM import_run r JOIN source s ON s.id = r.source_id
                WHERE r.id > ? ORDER BY r.id LIMIT ?
                """
        case .glucoseReadings:
            return """
                SELECT g.id, s.family, s.serial, g.device_record_key, d.date AS day, g.time, g.mgdl, g.unit, g.tag,
                       g.flag, g.kind, g.trend, g.noise, g.device_time, g.device_display_time, g.note
                FROM glucose g JOIN source s ON s.id = g.source_id JOIN day d ON d.id = g.day_id
                WHERE g.id > ? AND g.source_id IS NOT NULL ORDER BY g.id LIMIT ?
                """
        case .activitySessions:
            return """
                \(SyncEntity.sessionQuery(first: "e.id")) WHERE e.id > ? AND e.source_id IS NOT NULL ORDER BY e.id LIMIT ?
                """
        }
    }
}

/// A kind of row the change log follows; its key is the row's `uid` (logs), its date (Days) or
/// its id (imported sessions, whose favourite mark can change).
package enum SyncEntity: String, CaseIterable, Sendable {
    case glucose, insulin, meal, exercise, illness, stress, day, session

    /// The columns of imported sessions, after a first column given by `first`.
    static func sessionQuery(first: String) -> String {
        """
        SELECT \(first), s.family, s.serial, e.device_record_key, d.date AS day, e.time, e.name, e.duration_seconds,
               e.intensity, e.favourite_id IS NOT NULL AS favourite, e.device_time, e.device_display_time,
               e.distance_m, e.energy_kj
        FROM exercise e JOIN source s ON s.id = e.source_id JOIN day d ON d.id = e.day_id
        """
    }

    func currentQuery(keyList: String) -> String {
        let join = "JOIN day d ON d.id = t.day_id"
        switch self {
        case .glucose:
            return """
                SELECT t.uid AS key, d.date AS day, t.time, t.mgdl, t.unit, t.tag, t.flag, t.kind, t.trend, t.noise, t.note
                FROM glucose t \(join) WHERE t.uid IN (\(keyList))
                """
        case .insulin:
            return "SELECT t.uid AS key, d.date AS day, t.time, t.units FROM insulin t \(join) WHERE t.uid IN (\(keyList))"
        case .meal:
            return """
                SELECT t.uid AS key, d.date AS day, t.time, t.name, t.carbs_g, t.protein_g, t.fat_g,
                       t.favourite_id IS NOT NULL AS favourite
                FROM meal t \(join) WHERE t.uid IN (\(keyList))
                """
        case .exercise:
            return """
                SELECT t.uid AS key, d.date AS day, t.time, t.name, t.duration_seconds, t.intensity,
                       t.favourite_id IS NOT NULL AS favourite, t.distance_m, t.energy_kj
                FROM exercise t \(join) WHERE t.uid IN (\(keyList))
                """
        case .illness, .stress:
            return """
                SELECT t.uid AS key, d.date AS day, t.start_time, t.end_time
                FROM \(rawValue) t \(join) WHERE t.uid IN (\(keyList))
                """
        case .day:
            return "SELECT date AS key, favourite_id IS NOT NULL AS favourite FROM day WHERE date IN (\(keyList))"
        case .session:
            return """
                \(Self.sessionQuery(first: "CAST(e.id AS TEXT) AS key"))
                WHERE e.source_id IS NOT NULL AND e.id IN (\(keyList))
                """
        }
    }
}

/// One entry of the store's change log: the row of `entity` with `key` was inserted, edited or
/// removed (which one is read from the row as it is now).
package struct SyncChange: Sendable, Equatable {
    package var sequence: Int64
    package var entity: SyncEntity
    package var key: String
}

extension Migrations {
    /// A random (version 4) UUID, in lower case, from SQLite's `randomblob`.
    static let newUID = """
        lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
              || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-'
              || hex(randomblob(6)))
        """

    /// The rows the migrations put in a store that holds nothing yet: v8's sync uid, and the
    /// change log's sequence at 0 (where v8's copy of the existing Days, none, leaves it).
    static let newStoreRows = """
        INSERT INTO sync_store (id, uid) VALUES (1, \(newUID));
        INSERT INTO sqlite_sequence (name, seq) VALUES ('sync_change', 0);
        """

    /// The app's log tables, the change-log entity of each, the columns whose edit is a change
    /// (all but `uid`; glucose's derived `tag` is left out, so re-tagging is not an edit), and
    /// whether rows from a device share the table (then only rows without `source_id` are logs).
    private static let trackedLogs: [(table: String, columns: String, shared: Bool)] = [
        ("glucose", "day_id, time, mgdl, unit, flag, kind, trend, noise, note, source_id", true),
        ("insulin", "day_id, time, units", false),
        ("meal", "day_id, time, name, carbs_g, protein_g, fat_g, favourite_id", false),
        ("exercise", "day_id, time, name, duration_seconds, intensity, favourite_id, source_id", true),
        ("illness", "day_id, start_time, end_time", false),
        ("stress", "day_id, start_time, end_time", false),
    ]

    /// Change tracking for sync (see ``SharedStore/syncChanges(after:limit:)``).
    static var v8: String {
        var sql = """
            CREATE TABLE sync_store (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                uid TEXT NOT NULL CHECK (uid <> '')
            );
            INSERT INTO sync_store (id, uid) VALUES (1, \(newUID));

            -- AUTOINCREMENT: a sequence number is never given twice, even after old entries go.
            CREATE TABLE sync_change (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                -- Comparisons joined by OR, not an IN list: SQLite 3.40 builds a temporary B-tree for
                -- an IN list each time it checks a row (see v5).
                entity TEXT NOT NULL CHECK (entity = 'glucose' OR entity = 'insulin' OR entity = 'meal'
                                            OR entity = 'exercise' OR entity = 'illness' OR entity = 'stress'
                                            OR entity = 'day' OR entity = 'session'),
                key TEXT NOT NULL CHECK (key <> '')
            );

            -- Activity minutes are read by import run.
            CREATE INDEX activity_minute_by_import_run ON activity_minute(import_run_id);

            INSERT INTO sync_change (entity, key) SELECT 'day', date FROM day ORDER BY id;
            CREATE TRIGGER day_sync_insert AFTER INSERT ON day BEGIN
                INSERT INTO sync_change (entity, key) VALUES ('day', NEW.date);
            END;
            CREATE TRIGGER day_sync_update AFTER UPDATE OF date, favourite_id ON day BEGIN
                INSERT INTO sync_change (entity, key) SELECT 'day', OLD.date WHERE OLD.date <> NEW.date;
                INSERT INTO sync_change (entity, key) VALUES ('day', NEW.date);
            END;
            CREATE TRIGGER day_sync_delete AFTER DELETE ON day BEGIN
                INSERT INTO sync_change (entity, key) VALUES ('day', OLD.date);
            END;

            -- An imported session's favourite mark is the one thing about it that changes.
            CREATE TRIGGER exercise_session_sync_update AFTER UPDATE OF favourite_id ON exercise
            WHEN NEW.source_id IS NOT NULL BEGIN
                INSERT INTO sync_change (entity, key) VALUES ('session', CAST(NEW.id AS TEXT));
            END;

            """
        for (table, columns, shared) in trackedLogs {
            let onlyLogs = shared ? "WHEN NEW.source_id IS NULL" : ""
            let onlyKeyed = shared ? "WHEN NEW.source_id IS NULL AND NEW.uid IS NOT NULL" : "WHEN NEW.uid IS NOT NULL"
            let onlyLogsWhere = shared ? "AND source_id IS NULL" : ""
            sql += """
                ALTER TABLE \(table) ADD COLUMN uid TEXT CHECK (uid <> '');
                UPDATE \(table) SET uid = \(newUID) WHERE uid IS NULL \(onlyLogsWhere);
                CREATE UNIQUE INDEX \(table)_by_uid ON \(table)(uid) WHERE uid IS NOT NULL;
                INSERT INTO sync_change (entity, key) SELECT '\(table)', uid FROM \(table) WHERE uid IS NOT NULL ORDER BY id;
                CREATE TRIGGER \(table)_sync_insert AFTER INSERT ON \(table) \(onlyLogs) BEGIN
                    UPDATE \(table) SET uid = \(newUID) WHERE id = NEW.id AND uid IS NULL;
                    INSERT INTO sync_change (entity, key) SELECT '\(table)', uid FROM \(table) WHERE id = NEW.id;
                END;
                CREATE TRIGGER \(table)_sync_update AFTER UPDATE OF \(columns) ON \(table) \(onlyKeyed) BEGIN
                    INSERT INTO sync_change (entity, key) VALUES ('\(table)', NEW.uid);
                END;
                CREATE TRIGGER \(table)_sync_delete AFTER DELETE ON \(table) WHEN OLD.uid IS NOT NULL BEGIN
                    INSERT INTO sync_change (entity, key) VALUES ('\(table)', OLD.uid);
                END;
                CREATE TRIGGER \(table)_uid_kept BEFORE UPDATE OF uid ON \(table)
                WHEN OLD.uid IS NOT NULL AND NEW.uid IS NOT OLD.uid BEGIN
                    SELECT RAISE(ABORT, 'a log''s uid is given once and never changed');
                END;

                """
        }
        return sql
    }
}
