import Foundation
import GRDB
import ImportTestSupport
import Store
import TestSupport
import XCTest

@testable import Setup

/// `doctor` on real store files.
final class DoctorTests: XCTestCase {
    func testCurrentStore() throws {
        let path = try Fixtures.temporaryDirectory().appendingPathComponent("s.sqlite").path
        _ = try SharedStore(path: path, timeZone: TimeZone(identifier: "UTC"))
        let findings = Doctor(storePath: path, environment: [:]).storeFindings()
        XCTAssertEqual(
            findings,
            [
                DoctorFinding(.ok, "store", "\(path) is writable"),
                DoctorFinding(.ok, "store schema", "current (\(SharedStore.schemaMigrations.last!))"),
            ])
    }

    /// A store tagged by a glucobridge before v9 (on a whole mg/dL) is re-tagged when opened,
    /// and doctor says how many readings changed.
    func testTheRetaggingMigrationIsReported() throws {
        let file = try olderStore(
            migratedUpTo: "v8-sync-change-log",
            holding: """
                INSERT INTO day (date) VALUES ('2024-01-15');
                INSERT INTO source (family, serial) VALUES ('ble-cgms', 'SIM');
                INSERT INTO glucose (day_id, time, mgdl, unit, tag, kind, source_id, device_record_key) VALUES
                    (1, '2024-01-15 06:10:00.000', 69.6, 'mg/dL', 'in-range', 'sensor', 1, 'a'),
                    (1, '2024-01-15 06:15:00.000', 180.4, 'mg/dL', 'in-range', 'sensor', 1, 'b'),
                    (1, '2024-01-15 06:20:00.000', 120, 'mg/dL', 'in-range', 'sensor', 1, 'c');
                """)
        let path = file.path
        _ = try SharedStore(path: path, timeZone: TimeZone(identifier: "UTC"))
        let findings = Doctor(storePath: path, environment: [:]).storeFindings()
        XCTAssertEqual(findings.last?.status, .ok)
        XCTAssertEqual(findings.last?.subject, "store migration")
        XCTAssertEqual(
            findings.last?.message,
            "v9-tags-from-exact-values: 2 stored glucose readings re-tagged: tags are now decided on the value as the device "
                + "sent it (69.6 mg/dL is below 70), not on a whole mg/dL")
    }

    /// A store missing a migration, and one with a migration this release does not know.
    func testOlderAndNewerStores() throws {
        let path = try Fixtures.temporaryDirectory().appendingPathComponent("s.sqlite").path
        _ = try SharedStore(path: path, timeZone: TimeZone(identifier: "UTC"))
        let last = try XCTUnwrap(SharedStore.schemaMigrations.last)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [last]) }
        var schema = try XCTUnwrap(Doctor(storePath: path, environment: [:]).storeFindings().last)
        XCTAssertEqual(schema.status, .fail)
        XCTAssertEqual(schema.message, "older than this glucobridge: \(last) not applied")
        XCTAssertEqual(schema.fix, "run any glucobridge command on it (e.g. glucobridge days --store \(path)); it is migrated on opening")

        try queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?), ('v9-from-the-future')", arguments: [last])
        }
        try queue.close()
        schema = try XCTUnwrap(Doctor(storePath: path, environment: [:]).storeFindings().last)
        XCTAssertEqual(schema.status, .fail)
        XCTAssertEqual(schema.message, "written by a newer glucobridge (v9-from-the-future)")
    }

    func testDamagedStore() throws {
        let path = try Fixtures.temporaryDirectory().appendingPathComponent("s.sqlite").path
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        let schema = try XCTUnwrap(Doctor(storePath: path, environment: [:]).storeFindings().last)
        XCTAssertEqual(schema.status, .fail)
        XCTAssertTrue(schema.message.hasPrefix("the store \(path) is damaged or is not a glucobridge store"), schema.message)
    }

    func testRendering() {
        let text = Doctor.render([
            DoctorFinding(.ok, "store", "writable"),
            DoctorFinding(.fail, "bluetooth", "no adapter", fix: "plug one in"),
            DoctorFinding(.info, "readers", "none connected"),
        ])
        XCTAssertEqual(
            text,
            """
            ok    store             writable
            FAIL  bluetooth         no adapter
                  fix: plug one in
            info  readers           none connected
            1 problem found
            """)
    }
}
