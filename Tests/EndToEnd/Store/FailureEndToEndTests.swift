import ImportTestSupport
import Foundation
import GRDB
import Model
@testable import Store
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A store whose lock another program (sqlite3) holds.
final class FailureEndToEndTests: XCTestCase {
    /// `sqlite3` holds the write lock in an open `BEGIN IMMEDIATE` transaction while glucobridge writes.
    func testAWriteWhileAnotherProgramHoldsTheLockFailsAsLocked() throws {
        let file = try StoreFile()
        let store = try file.open(busyTimeout: 0.5)
        let before = try dump(file.path)

        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        holder.arguments = ["-batch", file.path]
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        defer { if holder.isRunning { holder.terminate() } }
        input.fileHandleForWriting.write(Data("""
            .timeout 0
            BEGIN IMMEDIATE;
            INSERT INTO favourite (name) VALUES ('held');
            SELECT 'holding';

            """.utf8))
        var seen = ""
        while !seen.contains("holding") {
            let data = output.fileHandleForReading.availableData
            XCTAssertFalse(data.isEmpty, "sqlite3 ended before taking the lock")
            if data.isEmpty { return }
            seen += String(decoding: data, as: UTF8.self)
        }

        // A store opened before the lock was taken waits out its busy timeout, then reports the lock.
        XCTAssertStoreError(.locked(path: file.path, waitedSeconds: 0.5)) {
            try store.save(batch(readings(count: 50, from: utc("2013-09-13T12:00:00Z")), cursors: ["egv": 50]))
        }
        // A store opened while the lock is held: opening may itself need a brief write (GRDB
        // creates the WAL file when it is missing), so the lock shows at the open or at the write.
        XCTAssertStoreError(.locked(path: file.path, waitedSeconds: 0.5)) {
            let late = try file.open(busyTimeout: 0.5)
            return try late.save(batch(readings(count: 50, from: utc("2013-09-13T12:00:00Z"))))
        }
        XCTAssertEqual(
            StoreError.locked(path: file.path, waitedSeconds: 0.5).description,
            "the store \(file.path) is locked by another program (waited 0.5 s); try again when it has finished writing")
        // Reads go on while the other program writes.
        XCTAssertEqual(try store.glucose().count, 0)

        input.fileHandleForWriting.write(Data("ROLLBACK;\n.quit\n".utf8))
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        XCTAssertEqual(try dump(file.path), before)
        XCTAssertEqual(try store.importRuns(limit: 5).count, 0)
        // Once the lock is released, the same import goes through.
        XCTAssertEqual(try store.save(batch(readings(count: 50, from: utc("2013-09-13T12:00:00Z")))).added, 50)
    }
}
