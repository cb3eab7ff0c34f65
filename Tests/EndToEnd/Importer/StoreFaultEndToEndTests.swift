import Drivers
import Foundation
import GRDB
import ImportTestSupport
import Simulators
import Store
import TestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// Faults while the built `glucobridge` program imports a large capture: killed with SIGKILL at
/// random moments, and another program writing the store all the while. The store stays intact
/// and holds whole imports only.
final class StoreFaultEndToEndTests: XCTestCase {
    let program = BuiltProducts.executable("glucobridge")
    /// Readings in the generated receiver dump: 160 pages of 38.
    static let readings = 38 * 160

    func replayProcess(_ capture: URL, store: String) throws -> Process {
        let process = Process()
        process.executableURL = program
        process.arguments = ["replay", capture.path, "--store", store]
        process.environment = ["HOME": NSTemporaryDirectory(), "TZ": "UTC"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// What the store holds: rows, and the readings its import runs say they added.
    func counts(_ path: String) throws -> (glucose: Int, added: Int, runs: Int, integrity: String) {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            // Killed before its schema was committed, a store has no tables at all.
            guard try db.tableExists("glucose") else {
                return (0, 0, 0, try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; "))
            }
            return (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM glucose") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(records_added), 0) FROM import_run") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM import_run") ?? -1,
                try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ")
            )
        }
    }

    /// SIGKILL at random moments of the import (spread over how long a whole one takes): after
    /// each, the store passes `PRAGMA integrity_check` and holds either nothing of the import or
    /// all of it; a last run completes every killed store. Each round imports into a store of its
    /// own, so every kill meets a first import (a re-import is far quicker than the one timed).
    func testKilledAtRandomMomentsTheStoreHoldsWholeImportsOnly() throws {
        let folder = try Fixtures.temporaryDirectory()
        let capture = folder.appendingPathComponent("receiver.pcap")
        try recordReceiverCapture(readings: Self.readings, serial: "SM00000099", to: capture)

        // One whole import into a scratch store, to learn how long one takes on this machine.
        let started = Date()
        let timing = try replayProcess(capture, store: folder.appendingPathComponent("timing.sqlite").path)
        timing.waitUntilExit()
        XCTAssertEqual(timing.terminationStatus, 0)
        let whole = Date().timeIntervalSince(started)

        var generator = SystemRandomNumberGenerator()
        var killed: [String] = []
        // A kill that comes after the import ended (the machine's speed changed since the timing
        // run) halves the aim of the rounds after it, and rounds go on until 6 kills have landed:
        // the last ones come right after the start, while the process certainly runs. The test
        // therefore never depends on how fast the machine is; only where the kills land does.
        var scale = 1.0
        var round = 0
        while killed.count < 6, round < 40 {
            defer { round += 1 }
            let store = folder.appendingPathComponent("store-\(round).sqlite").path
            // The later half of the run is where the transaction is written: aim there more often.
            let fraction = round % 2 == 0 ? Double.random(in: 0.05...0.95, using: &generator) : Double.random(in: 0.5...0.95, using: &generator)
            let aim = round < 34 ? whole * fraction * scale : 0
            let process = try replayProcess(capture, store: store)
            Thread.sleep(forTimeInterval: aim)
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killed.append(store)
            } else {
                scale /= 2
            }
            process.waitUntilExit()
            guard FileManager.default.fileExists(atPath: store) else { continue }
            let found = try counts(store)
            XCTAssertEqual(found.integrity, "ok", "round \(round)")
            XCTAssertTrue([0, Self.readings].contains(found.glucose), "round \(round): \(found.glucose) readings, not a whole import")
            XCTAssertEqual(found.added, found.glucose, "round \(round): the import runs do not account for the rows")
        }
        XCTAssertEqual(killed.count, 6, "kills that landed while the import ran")

        for store in killed {
            let last = try replayProcess(capture, store: store)
            last.waitUntilExit()
            XCTAssertEqual(last.terminationStatus, 0)
            let final = try counts(store)
            XCTAssertEqual(final.integrity, "ok")
            XCTAssertEqual(final.glucose, Self.readings)
            XCTAssertEqual(final.added, Self.readings)
        }
    }

    /// The `sqlite3` program writes the store in short transactions (with a 5 s busy timeout, as
    /// docs/store-schema.md asks) all through an import: both finish, nothing is lost, and no one
    /// sees "database is locked".
    func testAnotherProgramWritingThroughoutAnImportLosesNothing() throws {
        let folder = try Fixtures.temporaryDirectory()
        let capture = folder.appendingPathComponent("receiver.pcap")
        try recordReceiverCapture(readings: Self.readings, serial: "SM00000099", to: capture)
        let store = folder.appendingPathComponent("store.sqlite").path
        _ = try SharedStore(path: store, timeZone: TimeZone(identifier: "UTC")!)

        let errorsFile = folder.appendingPathComponent("replay.err")
        _ = FileManager.default.createFile(atPath: errorsFile.path, contents: nil)
        let replay = Process()
        replay.executableURL = program
        replay.arguments = ["replay", capture.path, "--store", store]
        replay.environment = ["HOME": NSTemporaryDirectory(), "TZ": "UTC"]
        replay.standardOutput = FileHandle.nullDevice
        replay.standardError = try FileHandle(forWritingTo: errorsFile)
        try replay.run()
        // Batches of ten one-row transactions, one `sqlite3` process each, until the import ends.
        // How many batches overlap the import depends on the machine's speed, so no count of them
        // is asserted; what is asserted holds however they interleave.
        var writes = 0
        repeat {
            let batch = (writes..<(writes + 10)).map { "BEGIN IMMEDIATE; INSERT INTO favourite (name) VALUES ('other app \($0)'); COMMIT;" }
            do {
                try sqlite3(store, batch.joined(separator: "\n"), timeoutMilliseconds: 5000)
            } catch let failure as SQLite3Failure {
                XCTFail("the other program failed: \(failure.message)")
                break
            }
            writes += 10
        } while replay.isRunning
        replay.waitUntilExit()

        let replayErrors = try String(contentsOf: errorsFile, encoding: .utf8)
        XCTAssertEqual(replay.terminationStatus, 0, replayErrors)
        XCTAssertFalse(replayErrors.contains("locked"), replayErrors)
        let found = try counts(store)
        XCTAssertEqual(found.integrity, "ok")
        XCTAssertEqual(found.glucose, Self.readings)
        XCTAssertEqual(found.added, Self.readings)
        XCTAssertEqual(try sqlite3(store, "SELECT COUNT(*) FROM favourite WHERE name LIKE 'other app %';"), "\(writes)")
    }
}
