import Foundation
import GRDB
import Importer
import Store
import TestSupport
import XCTest

/// A fresh store file in its own folder.
func makeStore(zone: String = "America/Los_Angeles", file: StaticString = #filePath, line: UInt = #line) throws -> (SharedStore, URL) {
    let folder = try Fixtures.temporaryDirectory()
    let store = try SharedStore(path: folder.appendingPathComponent("store.sqlite").path, timeZone: TimeZone(identifier: zone)!)
    return (store, folder)
}

/// Row counts of every table glucobridge writes, to show a failed import changed nothing.
func tableCounts(_ store: SharedStore) throws -> [String: Int] {
    try store.pool.read { db in
        var counts: [String: Int] = [:]
        for table in ["day", "glucose", "source", "import_run", "source_cursor"] {
            counts[table] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)")
        }
        return counts
    }
}

/// `2013-09-13 04:27:34` read as UTC.
func utc(_ text: String) -> Date {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
    return formatter.date(from: text)!
}
