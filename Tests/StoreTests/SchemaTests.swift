import Foundation
import GRDB
import Model
@testable import Store
import TestSupport
import XCTest

final class SchemaTests: XCTestCase {
    func testMigrationsCreateEveryTable() throws {
        let file = try StoreFile()
        _ = try file.open()
        let tables = try sqlite3(file.path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name;")
            .split(separator: "\n").map(String.init)
        XCTAssertEqual(tables, [
            "activity_minute", "day", "exercise", "favourite", "glucose", "grdb_migrations", "illness", "import_run",
            "insulin", "meal", "source", "source_cursor", "sqlite_sequence", "store_config", "stress", "sync_change",
            "sync_store", "user_profile",
        ])
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT identifier FROM grdb_migrations;"),
            "v1-app-model-and-ingest\nv2-app-api-indexes\nv3-activity-minutes-and-profile\nv4-glucose-note\nv8-sync-change-log")
        let indexes = try sqlite3(file.path, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'glucose' ORDER BY name;")
        XCTAssertEqual(indexes, "glucose_by_day\nglucose_by_time\nglucose_by_uid\nglucose_summary_by_day\nsqlite_autoindex_glucose_1")
    }

    func testWALForeignKeysAndBusyTimeoutAreOn() throws {
        let file = try StoreFile()
        let store = try file.open(busyTimeout: 2.5)
        XCTAssertEqual(try sqlite3(file.path, "PRAGMA journal_mode;"), "wal")
        try store.pool.read { db in
            XCTAssertEqual(try String.fetchOne(db, sql: "PRAGMA journal_mode"), "wal")
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA foreign_keys"), 1)
        }
        try store.pool.write { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA foreign_keys"), 1)
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA busy_timeout"), 2500)
            // The foreign key is enforced: a log must belong to an existing Day.
            XCTAssertThrowsError(try db.execute(sql: """
                INSERT INTO insulin (day_id, time, units) VALUES (999, '2013-09-13 08:00:00.000', 2)
                """))
        }
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
        try sqlite3(file.path, """
            INSERT INTO illness (day_id, start_time, end_time)
            VALUES (1, strftime('%Y-%m-%d %H:%M:%f', '2013-09-13 08:00:00'), NULL);
            """)
        XCTAssertEqual(try sqlite3(file.path, "SELECT start_time FROM illness;"), "2013-09-13 08:00:00.000")
    }

    func testReopeningDoesNotMigrateAgainAndNewerSchemaIsRefused() throws {
        let file = try StoreFile()
        do { _ = try file.open() }
        _ = try file.open()
        XCTAssertEqual(try count("grdb_migrations", in: file.path), 5)
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

    /// A store migrated by v1 alone may hold several open episodes of a kind: v2 ends each but
    /// the latest when the next one started, then forbids a second open episode.
    func testV2EndsExtraOpenEpisodesOfAnOlderStore() throws {
        let file = try olderStore(migratedUpTo: "v1-app-model-and-ingest", holding: """
            INSERT INTO day (date) VALUES ('2013-09-13');
            INSERT INTO illness (day_id, start_time) VALUES
                (1, '2013-09-13 12:00:00.000'), (1, '2013-09-13 08:00:00.000'), (1, '2013-09-13 10:00:00.000');
            INSERT INTO stress (day_id, start_time) VALUES (1, '2013-09-13 09:00:00.000');
            """)
        let store = try file.open(zone: "UTC")
        XCTAssertEqual(try store.logs(IllnessEpisode.self).map { $0.end.map(StoreTime.string) ?? "open" },
                       ["2013-09-13 10:00:00.000", "2013-09-13 12:00:00.000", "open"])
        XCTAssertEqual(try store.openEpisode(.stress)?.start, utc("2013-09-13T09:00:00Z"))
    }

    /// v4 adds `glucose.note` to a store that already holds readings: they keep no note, and an
    /// empty note is refused by any writer.
    func testV4AddsTheGlucoseNote() throws {
        let file = try olderStore(migratedUpTo: "v3-activity-minutes-and-profile", holding: """
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
}
