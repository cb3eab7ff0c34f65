import Foundation
import GRDB
import Model
import Pipeline
import Store
import TestSupport
import XCTest

/// A store file in a fresh temporary folder, removed with its folder when released.
package final class StoreFile: Sendable {
    package let folder: URL
    package var path: String { folder.appendingPathComponent("store.sqlite").path }

    package init() throws {
        folder = try Fixtures.temporaryDirectory()
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    package func open(zone: String? = "America/Los_Angeles", busyTimeout: TimeInterval = 5) throws -> SharedStore {
        try SharedStore(path: path, timeZone: zone.map { TimeZone(identifier: $0)! }, busyTimeout: busyTimeout)
    }
}

package let testSource = DeviceSource(family: "dexcom", serial: "SM12345678", model: "G4Receiver")

package func reading(
    _ index: Int, at time: Date, _ mgdl: Double, unit: GlucoseUnit = .milligramsPerDeciliter,
    kind: ReadingKind = .sensor, flag: RangeFlag? = nil
) -> GlucoseReading {
    GlucoseReading(
        time: time, mgdl: mgdl, unit: unit, kind: kind, flag: flag, trend: .flat, noise: 1,
        recordKey: "egv:\(index)", deviceTime: 370_000_000 + Int64(index) * 300,
        displayTime: nil)
}

/// Readings every five minutes from `start`, values cycling through `values`.
package func readings(count: Int, from start: Date, firstIndex: Int = 1, values: [Double] = [100, 120, 140]) -> [GlucoseReading] {
    (0..<count).map { i in
        reading(firstIndex + i, at: start.addingTimeInterval(Double(i) * 300), values[i % values.count])
    }
}

package func batch(
    _ glucose: [GlucoseReading], recordsRead: Int? = nil, cursors: RecordCursors = [:],
    source: DeviceSource = testSource
) -> ImportBatch {
    ImportBatch(
        source: source, startedAt: utc("2013-09-20T10:00:00Z"), mode: .replayConversation,
        origin: "fixtures/dexcom/g4.pcapng",
        clock: ClockReport(hostTime: utc("2013-09-20T10:00:00Z"), deviceTime: utc("2013-09-20T09:58:30Z"), method: .hostAnchored),
        glucose: glucose, recordsRead: recordsRead ?? glucose.count,
        events: [ImportEvent(name: "display-only", count: 2)], cursors: cursors,
        notes: ["host clock used as the anchor"])
}

/// The number of rows of `table`, read by the `sqlite3` program.
package func count(_ table: String, in path: String) throws -> Int {
    Int(try sqlite3(path, "SELECT count(*) FROM \(table);"))!
}

/// The whole content of the store as SQL text, for before/after comparisons.
package func dump(_ path: String) throws -> String {
    try sqlite3(path, ".dump")
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Asserts that `body` throws exactly `expected` (named as XCTest names its assertions).
package func XCTAssertStoreError<T>(
    _ expected: StoreError, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> T
) {
    do {
        _ = try body()
        XCTFail("expected \(expected)", file: file, line: line)
    } catch let error as StoreError {
        XCTAssertEqual(error, expected, file: file, line: line)
    } catch {
        XCTFail("expected \(expected), got \(error)", file: file, line: line)
    }
}

/// A store file migrated only up to `migration`, holding the rows `sql` inserts.
package func olderStore(migratedUpTo migration: String, holding sql: String) throws -> StoreFile {
    let file = try StoreFile()
    let queue = try DatabaseQueue(path: file.path)
    try Migrations.migrator.migrate(queue, upTo: migration)
    try queue.write { db in try db.execute(sql: sql) }
    try queue.close()
    return file
}
