import Foundation
import GRDB
import GRDBSQLite
import ImportTestSupport
import Model
import TestSupport
import XCTest

@testable import Store

#if canImport(Glibc)
    import Glibc
#endif

/// A store whose lock another program (sqlite3) holds.
final class FailureEndToEndTests: XCTestCase {
    /// `sqlite3` holding the write lock, and a lock-holder that says when it has let go.
    final class Holder {
        let process = Process()
        let input = Pipe(), output = Pipe()
        var seen = ""

        init(_ path: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            process.arguments = ["-batch", path]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
        }

        /// Sends `commands` and reads the program's output until it prints `marker`: whether it did.
        func run(_ commands: String, until marker: String) -> Bool {
            input.fileHandleForWriting.write(Data((commands + "\nSELECT '\(marker)';\n").utf8))
            while !seen.contains(marker) {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { return false }
                seen += String(decoding: data, as: UTF8.self)
            }
            return true
        }

        func quit() throws {
            input.fileHandleForWriting.write(Data(".quit\n".utf8))
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    /// The store's busy handler, replaced for one test: its first call says so and then waits,
    /// without a clock, until the test says the other program has let go of the lock.
    final class BusyWaits: @unchecked Sendable {
        let waiting = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var count = 0
        var calls: Int { lock.withLock { count } }

        /// Whether SQLite should try the lock again: once, after the release.
        func called() -> Int32 {
            let first = lock.withLock {
                count += 1
                return count == 1
            }
            guard first else { return 0 }
            waiting.signal()
            released.wait()
            return 1
        }
    }

    /// A write that meets another program's lock waits for it and goes through once the lock is
    /// released; proved by the order of events, not by how long anything took: `sqlite3` holds the
    /// lock, the store's write calls its busy handler (the first event), `sqlite3` commits its own
    /// row and says so (the second), and only then does the handler let SQLite try again.
    func testAWriteWaitsForAnotherProgramsLockAndGoesThroughOnceItIsReleased() throws {
        let file = try StoreFile()
        let store = try file.open(busyTimeout: 5)
        let waits = BusyWaits()
        try store.database.writeWithoutTransaction { db in
            sqlite3_busy_handler(
                db.sqliteConnection,
                { context, _ in
                    Unmanaged<BusyWaits>.fromOpaque(context!).takeUnretainedValue().called()
                }, Unmanaged.passUnretained(waits).toOpaque())
        }

        let holder = try Holder(file.path)
        defer { if holder.process.isRunning { holder.process.terminate() } }
        XCTAssertTrue(
            holder.run(".timeout 0\nBEGIN IMMEDIATE;\nINSERT INTO favourite (name) VALUES ('held');", until: "holding"),
            "sqlite3 ended before taking the lock")

        let saved = Box<Result<ImportSummary, StoreError>>()
        let writer = Thread {
            saved.value = Result { () throws(StoreError) in
                try store.save(batch(readings(count: 50, from: utc("2013-09-13T12:00:00Z")), cursors: ["egv": 50]))
            }
        }
        writer.start()
        // Bounds that only a hang reaches: the test waits for events, not for time.
        XCTAssertEqual(waits.waiting.wait(timeout: .now() + 600), .success, "the write never met the lock")
        XCTAssertEqual(waits.calls, 1, "the write met the lock")
        XCTAssertTrue(holder.run("COMMIT;", until: "committed"), "sqlite3 ended before committing")
        waits.released.signal()
        XCTAssertEqual(saved.done.wait(timeout: .now() + 600), .success, "the write did not end")

        XCTAssertEqual(try saved.value?.get().added, 50)
        XCTAssertEqual(waits.calls, 1, "one wait, then the lock was free")
        try holder.quit()
        XCTAssertEqual(try sqlite3(file.path, "SELECT name FROM favourite;"), "held")
        XCTAssertEqual(try store.glucose().count, 50)
        XCTAssertEqual(try store.importRuns(limit: 5).map(\.added), [50])
    }

    /// `sqlite3` holds the write lock in an open `BEGIN IMMEDIATE` transaction while glucobridge writes.
    func testAWriteWhileAnotherProgramHoldsTheLockFailsAsLocked() throws {
        let file = try StoreFile()
        let store = try file.open(busyTimeout: 0.5)
        let before = try dump(file.path)

        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        holder.arguments = ["-batch", file.path]
        let input = Pipe()
        let output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        defer { if holder.isRunning { holder.terminate() } }
        input.fileHandleForWriting.write(
            Data(
                """
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

/// A value set on another thread, and the event of its being set.
final class Box<Value>: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    var value: Value? { didSet { done.signal() } }
}
