import Foundation
import GRDB
import Store
import TestSupport
import TransportBlueZ
import XCTest

@testable import Setup

/// `doctor` on this machine and on real store files.
final class DoctorTests: XCTestCase {
    /// Here (no USB bus, no Bluetooth, nothing installed) doctor fails with a fix under every
    /// failure, exits 1, and never crashes.
    func testDoctorOnThisMachine() throws {
        let folder = try Fixtures.temporaryDirectory()
        let store = folder.appendingPathComponent("store.sqlite").path
        let environment = ["HOME": folder.path, "PATH": "/usr/bin:/bin"]
        let result = try runProcess(BuiltProducts.executable("glucobridge"), ["doctor", "--store", store], environment: environment)
        XCTAssertEqual(result.reason, .exit)
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertEqual(result.stderr, "", "no crash, no stack trace")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "glucobridge \(GlucoBridgeVersion.current) doctor")
        XCTAssertTrue(lines.contains("ok    store             \(store) does not exist yet; the first import creates it"), result.stdout)
        for (index, line) in lines.enumerated() where line.hasPrefix("FAIL") {
            XCTAssertTrue(lines[index + 1].hasPrefix("      fix: "), "no fix after: \(line)")
        }
        if !FileManager.default.fileExists(atPath: "/sys/bus/usb") {
            XCTAssertTrue(lines.contains {
                $0.hasPrefix("FAIL  usb bus           this kernel has no USB support (/sys/bus/usb does not exist)")
            }, result.stdout)
        }
        if case .unavailable(let reason) = BluetoothProbe.check(), reason.contains("no Bluetooth support") {
            XCTAssertTrue(lines.contains { $0.hasPrefix("FAIL  bluetooth         this kernel has no Bluetooth support") }, result.stdout)
        }
        XCTAssertTrue(lines.contains("FAIL  udev rules        not installed: readers need root to open and are not imported when plugged in"))
        XCTAssertTrue(lines.contains("      fix: sudo glucobridge install --system (or glucobridge install --user)"))
        let failures = lines.filter { $0.hasPrefix("FAIL") }.count
        XCTAssertEqual(lines.last, "\(failures) problem\(failures == 1 ? "" : "s") found")
        XCTAssertGreaterThan(failures, 0)
    }

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
