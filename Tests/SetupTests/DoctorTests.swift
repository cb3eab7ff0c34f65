import Foundation
import GRDB
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
        XCTAssertEqual(findings, [
            DoctorFinding(.ok, "store", "\(path) is writable"),
            DoctorFinding(.ok, "store schema", "current (\(SharedStore.schemaMigrations.last!))"),
        ])
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
        XCTAssertEqual(text, """
            ok    store             writable
            FAIL  bluetooth         no adapter
                  fix: plug one in
            info  readers           none connected
            1 problem found
            """)
    }
}
