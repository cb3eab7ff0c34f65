import Foundation
import GRDB
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

final class ConcurrencyTests: XCTestCase {
    /// The app (here the `sqlite3` program and a second GRDB connection) writes meals while
    /// glucobridge records a large import: every write survives and the file stays sound.
    func testAppWritesDuringAnImportAllSurvive() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        let offered = readings(count: 6000, from: utc("2013-09-01T00:00:00Z"))

        let cli = Thread.detachNewThreadWithResult {
            try (0..<20).forEach { i in
                try sqlite3(
                    file.path,
                    """
                    INSERT INTO day (date) VALUES ('2013-10-01') ON CONFLICT (date) DO NOTHING;
                    INSERT INTO meal (day_id, time, name, carbs_g)
                        SELECT id, strftime('%Y-%m-%d %H:%M:%f', '2013-10-01 12:00:00', '+\(i) minutes'), 'CLI meal \(i)', 30
                        FROM day WHERE date = '2013-10-01';
                    """)
            }
        }
        let queue = try DatabaseQueue(
            path: file.path,
            configuration: {
                var configuration = Configuration()
                configuration.busyMode = .timeout(10)
                return configuration
            }())
        let app = Thread.detachNewThreadWithResult {
            try (0..<20).forEach { i in
                try queue.write { db in
                    try db.execute(sql: "INSERT INTO day (date) VALUES ('2013-10-02') ON CONFLICT (date) DO NOTHING")
                    try db.execute(
                        sql: """
                            INSERT INTO meal (day_id, time, name, carbs_g)
                            SELECT id, ?, ?, 20 FROM day WHERE date = '2013-10-02'
                            """,
                        arguments: [String(format: "2013-10-02 12:%02d:00.000", i), "App meal \(i)"])
                }
            }
        }
        let summary = try store.save(batch(offered))
        try cli.wait()
        try app.wait()

        XCTAssertEqual(summary.added, 6000)
        XCTAssertEqual(try store.glucose().count, 6000)
        XCTAssertEqual(try count("meal", in: file.path), 40)
        XCTAssertEqual(try store.logs(of: DayDate("2013-10-01")!).meals.count, 20)
        XCTAssertEqual(try store.logs(of: DayDate("2013-10-02")!).meals.map(\.name), (0..<20).map { "App meal \($0)" })
        XCTAssertEqual(try sqlite3(file.path, "PRAGMA integrity_check;"), "ok")
        XCTAssertNoThrow(try store.checkIntegrity())
    }

    /// An import commits at `synchronous = FULL` (the WAL synced before it reports, so a power
    /// cut cannot take back an import that printed success: the lab's `power-loss` scenario), and
    /// the connection is back at its own level, NORMAL, for the writes after it.
    func testAnImportCommitsAtSynchronousFull() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        let level = { (db: Database) in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        XCTAssertEqual(try store.database.writeWithoutTransaction(level), 1)
        XCTAssertEqual(try store.writeImport(level), 2)
        XCTAssertEqual(try store.database.writeWithoutTransaction(level), 1)
        let summary = try store.save(batch(readings(count: 3, from: utc("2013-09-01T00:00:00Z"))))
        XCTAssertEqual(summary.added, 3)
        XCTAssertEqual(try store.database.writeWithoutTransaction(level), 1)
    }
}

/// A thread whose throwing body can be waited for.
final class ResultThread: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var error: (any Error)?

    init(_ body: @escaping @Sendable () throws -> Void) {
        Thread.detachNewThread { [self] in
            do { try body() } catch { self.error = error }
            done.signal()
        }
    }

    func wait() throws {
        done.wait()
        if let error { throw error }
    }
}

extension Thread {
    static func detachNewThreadWithResult(_ body: @escaping @Sendable () throws -> Void) -> ResultThread {
        ResultThread(body)
    }
}
