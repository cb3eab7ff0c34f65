import Foundation
import GRDB
import ImportTestSupport
import Model
import TestSupport
import XCTest

@testable import Store

final class SchemaTests: XCTestCase {
    func testMigrationsCreateEveryTable() throws {
        let file = try StoreFile()
        _ = try file.open()
        let tables = try sqlite3(file.path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name;")
            .split(separator: "\n").map(String.init)
        XCTAssertEqual(
            tables,
            [
                "activity_minute", "activity_minute_part", "day", "exercise", "favourite", "glucose", "grdb_migrations", "illness", "import_run",
                "insulin", "meal", "migration_note", "source", "source_cursor", "source_service", "sqlite_sequence", "store_config", "stress",
                "sync_change",
                "sync_store", "user_profile",
            ])
        let applied = try sqlite3(file.path, "SELECT identifier FROM grdb_migrations;").split(separator: "\n").map(String.init)
        XCTAssertEqual(applied, Migrations.migrator.migrations)
        XCTAssertEqual(
            Array(applied.prefix(5)),
            [
                "v1-app-model-and-ingest", "v2-app-api-indexes", "v3-activity-minutes-and-profile", "v4-glucose-note",
                "v5-glucose-fast-checks",
            ])
        let indexes = try sqlite3(file.path, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'glucose' ORDER BY name;")
        XCTAssertEqual(indexes, "glucose_by_day\nglucose_by_time\nglucose_by_uid\nglucose_summary_by_day\nsqlite_autoindex_glucose_1")
    }

    /// A new store's schema, made in one transaction from ``Migrations/currentSchema``, is
    /// exactly what the migrator makes one migration at a time: every table, index and trigger
    /// with the same SQL and the same columns, the same migrations recorded as applied in the
    /// same order, the same header values, and the same rows (v8's sync uid, nothing else).
    func testOneTransactionSchemaIsTheMigratorsSchema() throws {
        let made = try StoreFile()
        _ = try made.open()
        let migrated = try StoreFile()
        let queue = try DatabaseQueue(path: migrated.path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try Migrations.migrator.migrate(queue)
        try queue.close()
        let schema = "SELECT type || ' ' || name || ' ' || tbl_name || ': ' || sql FROM sqlite_master ORDER BY type, name;"
        let expected = try sqlite3(migrated.path, schema)
        // On a new migration, this is what `currentSchema` must hold: tables, then indexes, then triggers.
        let current = try sqlite3(
            migrated.path,
            """
            SELECT sql || ';' FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations'
            ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END, rowid;
            """)
        XCTAssertEqual(try sqlite3(made.path, schema), expected, "Migrations.currentSchema should be:\n\(current)")
        XCTAssertTrue(expected.contains("CREATE TRIGGER glucose_sync_insert"), expected)
        XCTAssertTrue(expected.contains("CREATE TABLE \"glucose\""), expected)
        XCTAssertEqual(
            try sqlite3(made.path, "SELECT identifier FROM grdb_migrations ORDER BY rowid;"),
            try sqlite3(migrated.path, "SELECT identifier FROM grdb_migrations ORDER BY rowid;"))
        XCTAssertEqual(try sqlite3(made.path, "PRAGMA foreign_key_check;"), "")
        // Every table's columns (name, type, NOT NULL, default, key), and the header values.
        let columns = """
            SELECT m.name || '.' || c.name || ' ' || c.type || ' ' || c."notnull" || ' ' || ifnull(c.dflt_value, '-') || ' ' || c.pk
            FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table' ORDER BY m.name, c.cid;
            """
        XCTAssertEqual(try sqlite3(made.path, columns), try sqlite3(migrated.path, columns))
        for pragma in ["user_version", "page_size", "encoding", "auto_vacuum", "journal_mode"] {
            XCTAssertEqual(try sqlite3(made.path, "PRAGMA \(pragma);"), try sqlite3(migrated.path, "PRAGMA \(pragma);"), pragma)
        }
        // The rows of a store that holds nothing yet: one sync uid (a random version 4 UUID, each
        // store its own), and no other row but the store's settings and the applied migrations.
        let uid = "SELECT id, length(uid), substr(uid, 15, 1), uid = lower(uid) FROM sync_store;"
        XCTAssertEqual(try sqlite3(made.path, uid), "1|36|4|1")
        XCTAssertEqual(try sqlite3(made.path, uid), try sqlite3(migrated.path, uid))
        XCTAssertNotEqual(try sqlite3(made.path, "SELECT uid FROM sync_store;"), try sqlite3(migrated.path, "SELECT uid FROM sync_store;"))
        let tables = try sqlite3(
            migrated.path,
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('grdb_migrations', 'store_config', 'migration_note') ORDER BY name;"
        )
        let counts = tables.split(separator: "\n").map { "SELECT '\($0)', COUNT(*) FROM \($0);" }.joined(separator: " ")
        XCTAssertEqual(try sqlite3(made.path, counts), try sqlite3(migrated.path, counts))
        XCTAssertEqual(try sqlite3(made.path, "SELECT * FROM sqlite_sequence;"), "sync_change|0")
        XCTAssertEqual(try sqlite3(migrated.path, "SELECT * FROM sqlite_sequence;"), "sync_change|0")
    }

    func testWALForeignKeysAndBusyTimeoutAreOn() throws {
        let file = try StoreFile()
        let store = try file.open(busyTimeout: 2.5)
        XCTAssertEqual(try sqlite3(file.path, "PRAGMA journal_mode;"), "wal")
        try store.database.read { db in
            XCTAssertEqual(try String.fetchOne(db, sql: "PRAGMA journal_mode"), "wal")
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA foreign_keys"), 1)
        }
        try store.database.write { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA foreign_keys"), 1)
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA busy_timeout"), 2500)
            // The foreign key is enforced: a log must belong to an existing Day.
            XCTAssertThrowsError(
                try db.execute(
                    sql: """
                        INSERT INTO insulin (day_id, time, units) VALUES (999, '2013-09-13 08:00:00.000', 2)
                        """))
        }
    }

    /// One connection (`.serial`) makes a new store in WAL mode like a pool does, and opening
    /// an existing store that way writes nothing: the WAL stays empty until a change is made,
    /// and that change is in the file for another program.
    func testOneConnectionOpensInWALModeAndWritesNothingOnOpening() throws {
        let file = try StoreFile()
        let made = try SharedStore(path: file.path, timeZone: TimeZone(identifier: "Europe/Berlin"), access: .serial)
        XCTAssertEqual(try sqlite3(file.path, "PRAGMA journal_mode;"), "wal")
        XCTAssertEqual(try made.database.read { db in try Int.fetchOne(db, sql: "PRAGMA foreign_keys") }, 1)
        try made.database.close()
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path + "-wal"))

        let store = try SharedStore(path: file.path, access: .serial)
        let wal = try FileManager.default.attributesOfItem(atPath: file.path + "-wal")[.size] as? Int
        XCTAssertEqual(wal, 0)
        XCTAssertEqual(store.timeZone.identifier, "Europe/Berlin")
        _ = try store.save(batch([reading(1, at: utc("2013-09-20T09:00:00Z"), 120)]))
        XCTAssertEqual(try sqlite3(file.path, "SELECT mgdl FROM glucose;"), "120.0")
    }

    func testCheckConstraintsRejectImpossibleValuesFromAnyWriter() throws {
        let file = try StoreFile()
        _ = try file.open()
        try sqlite3(file.path, "INSERT INTO day (date) VALUES ('2013-09-13');")
        let rejected = [
            "INSERT INTO glucose (day_id, time, mgdl, tag) VALUES (1, '2013-09-13 08:00:00.000', 0, 'hypo-l2');",
            "INSERT INTO glucose (day_id, time, mgdl, tag) VALUES (1, '2013-09-13 08:00:00.000', 1000, 'hyper-l2');",
            "INSERT INTO glucose (day_id, time, mgdl, tag) VALUES (1, '2013-09-13T08:00:00Z', 100, 'in-range');",
            "INSERT INTO glucose (day_id, time, mgdl, tag) VALUES (1, '2013-09-13 08:00:00.000', 100, 'fine');",
            "INSERT INTO exercise (day_id, time, name, duration_seconds, intensity) VALUES (1, '2013-09-13 08:00:00.000', 'Walking', -1, 'light');",
            "INSERT INTO exercise (day_id, time, name, duration_seconds, intensity) VALUES (1, '2013-09-13 08:00:00.000', 'Walking', 60, 'extreme');",
            "INSERT INTO illness (day_id, start_time, end_time) VALUES (1, '2013-09-13 08:00:00.000', '2013-09-13 07:00:00.000');",
            "INSERT INTO day (date) VALUES ('13/09/2013');",
        ]
        for sql in rejected {
            XCTAssertThrowsError(try sqlite3(file.path, sql), sql)
        }
        // The format other writers produce with strftime is accepted, and sorts with glucobridge's.
        try sqlite3(
            file.path,
            """
            INSERT INTO illness (day_id, start_time, end_time)
            VALUES (1, strftime('%Y-%m-%d %H:%M:%f', '2013-09-13 08:00:00'), NULL);
            """)
        XCTAssertEqual(try sqlite3(file.path, "SELECT start_time FROM illness;"), "2013-09-13 08:00:00.000")
    }

    func testReopeningDoesNotMigrateAgainAndNewerSchemaIsRefused() throws {
        let file = try StoreFile()
        do { _ = try file.open() }
        _ = try file.open()
        XCTAssertEqual(try count("grdb_migrations", in: file.path), Migrations.migrator.migrations.count)
        try sqlite3(file.path, "INSERT INTO grdb_migrations VALUES ('v9-from-the-future');")
        XCTAssertStoreError(.newerSchema(path: file.path, unknownMigrations: ["v9-from-the-future"])) {
            try file.open()
        }
    }

    func testStoreTimeFormatRoundTripsAndMatchesSQLite() throws {
        let instant = utc("2013-09-13T06:59:59.125Z")
        XCTAssertEqual(StoreTime.string(instant), "2013-09-13 06:59:59.125")
        XCTAssertEqual(StoreTime.date("2013-09-13 06:59:59.125"), instant)
        XCTAssertEqual(StoreTime.date("2013-09-13 06:59:59"), utc("2013-09-13T06:59:59Z"))
        XCTAssertNil(StoreTime.date("2013-02-30 00:00:00.000"))
        XCTAssertEqual(StoreTime.string(Date(timeIntervalSince1970: -0.0004)), "1970-01-01 00:00:00.000")
        XCTAssertEqual(StoreTime.string(Date(timeIntervalSince1970: -1)), "1969-12-31 23:59:59.000")
        XCTAssertEqual(StoreTime.string(Date(timeIntervalSince1970: 951_868_800 - 0.0004)), "2000-03-01 00:00:00.000")
        let file = try StoreFile()
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT strftime('%Y-%m-%d %H:%M:%f', 1379055599.125, 'unixepoch');"),
            StoreTime.string(instant))
    }

    /// An import's instants, written into one column with each instant of the same UTC day as
    /// the one before taking its date, are the same bytes as ``StoreTime/string(_:)`` writes:
    /// across midnights, in and out of order, before 1970, rounded up into the next day, at the
    /// ends of the format's years.
    /// Every column of `glucose` is written by an import's fast path (a reading's values, or one
    /// value for a run) or listed as left out with the reason, so that a column added to the
    /// schema and forgotten by the import fails here by name; and a reading with every value
    /// set leaves none of the written columns empty.
    func testEveryGlucoseColumnIsWrittenByAnImportOrListedAsLeftOut() throws {
        let file = try StoreFile()
        let store = try file.open()
        let written = GlucoseImportColumns.perRun + GlucoseImportColumns.Reading.allCases.map(\.name)
        let columns = try sqlite3(file.path, "SELECT name FROM pragma_table_info('glucose') ORDER BY cid;").split(separator: "\n").map(String.init)
        for column in columns {
            XCTAssertTrue(
                written.contains(column) || GlucoseImportColumns.notWritten[column] != nil,
                "the glucose column \(column) is neither written by an import (GlucoseImportColumns) nor listed as left out")
        }
        for column in written + GlucoseImportColumns.notWritten.keys where !columns.contains(column) {
            XCTFail("GlucoseImportColumns names \(column), which glucose does not have")
        }
        XCTAssertEqual(Set(written).count, written.count, "a column is written twice: \(written)")

        let sent = GlucoseReading(
            time: utc("2013-09-13T06:55:00Z"), mgdl: 39, unit: .millimolesPerLiter, kind: .fingerstick, flag: .belowRange,
            trend: .fortyFiveUp, noise: 2, recordKey: "meter:1", deviceTime: 370_000_300, displayTime: "2013-09-12T23:55:00",
            note: "before meal")
        XCTAssertEqual(try store.save(batch([sent])).added, 1)
        for column in written {
            XCTAssertEqual(
                try sqlite3(file.path, "SELECT count(*) FROM glucose WHERE \"\(column)\" IS NULL;"), "0",
                "an import left the glucose column \(column) empty for a reading with every value set")
        }
    }

    func testAnImportsInstantsAreWrittenAsStoreTimeWritesThem() throws {
        var instants = [
            utc("2013-09-13T06:59:59.125Z"), utc("2013-09-13T23:59:59.999Z"), utc("2013-09-14T00:00:00Z"),
            utc("2013-09-13T12:00:00Z"), Date(timeIntervalSince1970: 1_379_116_799.9996), utc("2013-09-14T00:00:00.001Z"),
            Date(timeIntervalSince1970: -0.0004), Date(timeIntervalSince1970: -1), Date(timeIntervalSince1970: -86_400.5),
            Date(timeIntervalSince1970: -86_399.5), Date(timeIntervalSince1970: 951_868_800 - 0.0004),
            StoreTime.representable.lowerBound, StoreTime.representable.upperBound, utc("2024-02-29T23:59:59.500Z"),
        ]
        instants += (0..<600).map { utc("2013-09-13T00:00:00Z").addingTimeInterval(Double($0) * 299.7) }
        let readings = instants.enumerated().map { reading($0.offset, at: $0.element, 100) }
        let texts = TextColumn(instants: readings).withBytes { column in
            (0..<readings.count).map { row in String(decoding: UnsafeBufferPointer(rebasing: column.all[column.ranges[row]!]), as: UTF8.self) }
        }
        XCTAssertEqual(texts, instants.map(StoreTime.string))
        XCTAssertEqual(texts[4], "2013-09-14 00:00:00.000")
        XCTAssertEqual(texts[9], "1969-12-31 00:00:00.500")
    }

    /// A store migrated by v1 alone may hold several open episodes of a kind: v2 ends each but
    /// the latest when the next one started, then forbids a second open episode.
    func testV2EndsExtraOpenEpisodesOfAnOlderStore() throws {
        let file = try olderStore(
            migratedUpTo: "v1-app-model-and-ingest",
            holding: """
                INSERT INTO day (date) VALUES ('2013-09-13');
                INSERT INTO illness (day_id, start_time) VALUES
                    (1, '2013-09-13 12:00:00.000'), (1, '2013-09-13 08:00:00.000'), (1, '2013-09-13 10:00:00.000');
                INSERT INTO stress (day_id, start_time) VALUES (1, '2013-09-13 09:00:00.000');
                """)
        let store = try file.open(zone: "UTC")
        XCTAssertEqual(
            try store.logs(IllnessEpisode.self).map { $0.end.map(StoreTime.string) ?? "open" },
            ["2013-09-13 10:00:00.000", "2013-09-13 12:00:00.000", "open"])
        XCTAssertEqual(try store.openEpisode(.stress)?.start, utc("2013-09-13T09:00:00Z"))
    }

    /// v9 re-tags the readings an older glucobridge tagged on a whole mg/dL (69.6 as 70, in
    /// range), on the value as sent, and keeps how many changed for `doctor`; the sync change log
    /// does not count a new tag as an edit.
    func testV9RetagsOnTheValueAsSentAndCountsTheChanges() throws {
        let file = try olderStore(
            migratedUpTo: "v8-sync-change-log",
            holding: """
                INSERT INTO day (date) VALUES ('2013-09-13');
                INSERT INTO source (family, serial) VALUES ('ble-cgms', 'SIM');
                INSERT INTO glucose (day_id, time, mgdl, unit, tag, kind, source_id, device_record_key) VALUES
                    (1, '2013-09-13 08:00:00.000', 53.9, 'mg/dL', 'hypo-l1', 'sensor', 1, 'k1'),
                    (1, '2013-09-13 08:05:00.000', 69.6, 'mg/dL', 'in-range', 'sensor', 1, 'k2'),
                    (1, '2013-09-13 08:10:00.000', 70, 'mg/dL', 'in-range', 'sensor', 1, 'k3'),
                    (1, '2013-09-13 08:15:00.000', 180.4, 'mg/dL', 'in-range', 'sensor', 1, 'k4'),
                    (1, '2013-09-13 08:20:00.000', 204.5, 'mg/dL', 'hyper-l1', 'sensor', 1, 'k5'),
                    (1, '2013-09-13 08:25:00.000', 70.26240, 'mmol/L', 'in-range', 'fingerstick', NULL, NULL);
                """)
        let changesBefore = try sqlite3(file.path, "SELECT count(*) FROM sync_change;")
        let store = try file.open(zone: "UTC")
        XCTAssertEqual(try store.glucose().map(\.tag), [.hypoLevel2, .hypoLevel1, .inRange, .hyperLevel1, .hyperLevel1, .inRange])
        XCTAssertEqual(try store.glucose().map(\.mgdl), [53.9, 69.6, 70, 180.4, 204.5, 70.2624])
        XCTAssertEqual(try sqlite3(file.path, "SELECT count(*) FROM sync_change;"), changesBefore)
        let notes = try SharedStore.migrationNotes(at: file.path)
        XCTAssertEqual(notes.map(\.migration), ["v9-tags-from-exact-values"])
        XCTAssertEqual(notes.map(\.changed), [3])
        XCTAssertEqual(
            notes.first?.note.hasPrefix("3 stored glucose readings re-tagged: tags are now decided on the value as the device sent it"), true)
        // A new store has nothing to re-tag, and no note.
        let fresh = try StoreFile()
        _ = try fresh.open(zone: "UTC")
        XCTAssertEqual(try SharedStore.migrationNotes(at: fresh.path), [])
    }

    /// v4 adds `glucose.note` to a store that already holds readings: they keep no note, and an
    /// empty note is refused by any writer.
    /// v12 gives exercise a distance and an energy: sessions stored before have none, an app
    /// log's edit of either is a change for sync, and neither may be negative.
    func testV12AddsExerciseDistanceAndEnergy() throws {
        let file = try olderStore(
            migratedUpTo: "v11-device-minute-values",
            holding: """
                INSERT INTO day (date) VALUES ('2013-09-13');
                INSERT INTO exercise (day_id, time, name, duration_seconds, intensity) VALUES (1, '2013-09-13 08:00:00.000', 'Walking', 1800, 'light');
                """)
        let store = try file.open(zone: "UTC")
        let before = try XCTUnwrap(try store.logs(ExerciseLog.self).first)
        XCTAssertNil(before.log.distance)
        XCTAssertNil(before.log.energy)
        let changes = try sqlite3(file.path, "SELECT count(*) FROM sync_change WHERE entity = 'exercise';")
        try sqlite3(file.path, "UPDATE exercise SET distance_m = 2450.5, energy_kj = 410;")
        XCTAssertEqual(try sqlite3(file.path, "SELECT count(*) FROM sync_change WHERE entity = 'exercise';"), "\((Int(changes) ?? 0) + 1)")
        XCTAssertEqual(try store.logs(ExerciseLog.self).map(\.log.distance), [2450.5])
        XCTAssertEqual(try store.logs(ExerciseLog.self).map(\.log.energy), [410])
        XCTAssertThrowsError(try sqlite3(file.path, "UPDATE exercise SET distance_m = -1;"))
        XCTAssertThrowsError(try sqlite3(file.path, "UPDATE exercise SET energy_kj = -0.5;"))
        XCTAssertThrowsError(
            try store.add(ExerciseLog(time: Date(timeIntervalSince1970: 1_379_059_200), name: "Run", duration: 60, intensity: .light, distance: -3)))
    }

    func testV4AddsTheGlucoseNote() throws {
        let file = try olderStore(
            migratedUpTo: "v3-activity-minutes-and-profile",
            holding: """
                INSERT INTO day (date) VALUES ('2013-09-13');
                INSERT INTO glucose (day_id, time, mgdl, tag) VALUES (1, '2013-09-13 08:00:00.000', 112, 'in-range');
                """)
        let store = try file.open(zone: "UTC")
        XCTAssertEqual(try store.glucose().map(\.mgdl), [112])
        XCTAssertEqual(try store.glucose().map(\.note), [nil])
        XCTAssertThrowsError(try sqlite3(file.path, "UPDATE glucose SET note = '';"))
        try sqlite3(file.path, "UPDATE glucose SET note = 'before meal';")
        XCTAssertEqual(try store.glucose().map(\.note), ["before meal"])
    }

    /// v5 rebuilds `glucose` of an older store: every row and id kept, the key and the indexes
    /// made again, and each CHECK refusing and accepting what it did.
    func testV5RebuildsGlucoseWithTheSameRules() throws {
        let file = try olderStore(
            migratedUpTo: "v4-glucose-note",
            holding: """
                INSERT INTO day (date) VALUES ('2013-09-13');
                INSERT INTO source (family, serial) VALUES ('dexcom', 'SM1');
                INSERT INTO glucose (id, day_id, time, mgdl, unit, tag, flag, kind, trend, noise, source_id, device_record_key,
                                     device_time, device_display_time, note)
                VALUES (7, 1, '2013-09-13 08:00:00.000', 39, 'mg/dL', 'hypo-l2', 'LO', 'sensor', 'DoubleDown', 2, 1, 'egv:1',
                        100, '2013-09-13T01:00:00', NULL),
                       (9, 1, '2013-09-13 09:00:00.000', 6.2, 'mmol/L', 'hypo-l2', NULL, 'fingerstick', NULL, NULL, NULL, NULL,
                        NULL, NULL, 'before meal');
                """)
        // The columns v5 has (later migrations add their own).
        let rows =
            "SELECT id, day_id, time, mgdl, unit, tag, flag, kind, trend, noise, source_id, device_record_key, device_time, device_display_time, import_run_id, note FROM glucose ORDER BY id;"
        let before = try sqlite3(file.path, rows)
        _ = try file.open(zone: "UTC")
        XCTAssertEqual(try sqlite3(file.path, rows), before)
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT name FROM sqlite_master WHERE tbl_name = 'glucose' AND type = 'index' ORDER BY name;"),
            "glucose_by_day\nglucose_by_time\nglucose_by_uid\nglucose_summary_by_day\nsqlite_autoindex_glucose_1")
        XCTAssertEqual(try sqlite3(file.path, "PRAGMA foreign_key_check; PRAGMA integrity_check;"), "ok")
        // No temporary B-tree is built to check a row.
        let program = try sqlite3(
            file.path,
            """
            EXPLAIN INSERT INTO glucose (day_id, time, mgdl, unit, tag, flag, kind, trend, source_id, device_record_key)
            VALUES (1, '2013-09-13 10:00:00.000', 100, 'mg/dL', 'in-range', NULL, 'sensor', 'Flat', 1, 'egv:2');
            """)
        XCTAssertFalse(program.contains("OpenEphemeral"), program)

        func insert(
            unit: String = "'mg/dL'", tag: String = "'in-range'", flag: String = "NULL", kind: String = "'sensor'",
            trend: String = "NULL", key: String
        ) -> String {
            """
            INSERT INTO glucose (day_id, time, mgdl, unit, tag, flag, kind, trend, source_id, device_record_key)
            VALUES (1, '2013-09-13 10:00:00.000', 100, \(unit), \(tag), \(flag), \(kind), \(trend), 1, '\(key)');
            """
        }
        let refused = [
            insert(unit: "'mg/dl'", key: "u"), insert(unit: "NULL", key: "u0"), insert(tag: "'in range'", key: "t"),
            insert(tag: "NULL", key: "t0"), insert(flag: "'lo'", key: "f"), insert(kind: "'cgm'", key: "k"),
            insert(trend: "'flat'", key: "r"), insert(trend: "''", key: "r0"),
            insert(key: "egv:1"),  // the (source, record key) pair is stored already
        ]
        for sql in refused {
            XCTAssertThrowsError(try sqlite3(file.path, sql), sql)
        }
        var accepted = ["hypo-l2", "hypo-l1", "in-range", "hyper-l1", "hyper-l2"].map { insert(tag: "'\($0)'", key: "tag-\($0)") }
        accepted += ["LO", "HI"].map { insert(flag: "'\($0)'", key: "flag-\($0)") }
        accepted += ["mmol/L"].map { insert(unit: "'\($0)'", key: "unit-\($0)") }
        accepted += ["fingerstick"].map { insert(kind: "'\($0)'", key: "kind-\($0)") }
        accepted += [
            "DoubleUp", "SingleUp", "FortyFiveUp", "Flat", "FortyFiveDown", "SingleDown", "DoubleDown",
            "NotComputable", "RateOutOfRange",
        ].map { insert(trend: "'\($0)'", key: "trend-\($0)") }
        for sql in accepted {
            XCTAssertNoThrow(try sqlite3(file.path, sql), sql)
        }
        XCTAssertEqual(try count("glucose", in: file.path), 2 + accepted.count)
    }
}
