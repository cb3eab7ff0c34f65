import Foundation
import GRDB
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

/// Migration `v8-sync-change-log`: stable uids for app logs and the change log sync reads.
final class ChangeLogTests: XCTestCase {
    func testAppLogsGetAUidOnceEvenFromPlainSQLAndImportedRowsNone() throws {
        let file = try StoreFile()
        let store = try file.open()
        _ = try store.save(batch(readings(count: 3, from: utc("2013-09-13T07:00:00Z"))))
        let meal = try store.add(MealLog(time: utc("2013-09-13T12:00:00Z"), name: "Soup", carbs: 30))
        _ = try sqlite3(
            file.path,
            """
            INSERT INTO insulin (day_id, time, units) SELECT id, '2013-09-13 12:05:00.000', 4 FROM day LIMIT 1;
            """)

        XCTAssertEqual(try sqlite3(file.path, "SELECT count(*) FROM glucose WHERE uid IS NOT NULL;"), "0")
        // A fingerstick entered by another program, after every migration (a later one must keep
        // glucose's uid trigger).
        _ = try sqlite3(
            file.path,
            """
            INSERT INTO glucose (day_id, time, mgdl, tag) SELECT id, '2013-09-13 12:10:00.000', 140, 'in-range' FROM day LIMIT 1;
            """)
        XCTAssertEqual(try sqlite3(file.path, "SELECT count(*) FROM glucose WHERE uid IS NOT NULL;"), "1")
        XCTAssertEqual(
            try sqlite3(
                file.path, "SELECT count(*) FROM sync_change WHERE entity = 'glucose' AND key = (SELECT uid FROM glucose WHERE uid IS NOT NULL);"),
            "1")
        let uids = try sqlite3(file.path, "SELECT uid FROM meal UNION ALL SELECT uid FROM insulin;").split(separator: "\n")
        XCTAssertEqual(uids.count, 2)
        for uid in uids {
            XCTAssertNotNil(UUID(uuidString: String(uid)), "\(uid) is not a UUID")
            XCTAssertEqual(String(uid), uid.lowercased())
        }
        XCTAssertNotEqual(uids[0], uids[1])

        // Given once: an edit keeps it, and changing it is refused for every writer.
        _ = try store.update(meal.id, with: MealLog(time: utc("2013-09-13T12:00:00Z"), name: "Soup", carbs: 45))
        XCTAssertEqual(try sqlite3(file.path, "SELECT uid FROM meal;"), String(uids[0]))
        XCTAssertThrowsError(try sqlite3(file.path, "UPDATE meal SET uid = 'mine';")) { error in
            XCTAssertTrue("\(error)".contains("uid is given once"), "\(error)")
        }
    }

    func testInsertsEditsAndRemovalsAreLoggedButImportsOnlyAddTheirDays() throws {
        let file = try StoreFile()
        let store = try file.open()
        let before = try store.syncChanges(after: 0, limit: 100)
        XCTAssertEqual(before, [])

        _ = try store.save(batch(readings(count: 300, from: utc("2013-09-13T07:00:00Z"))))
        let imported = try store.syncChanges(after: 0, limit: 1000)
        XCTAssertEqual(imported.map(\.entity), [.day, .day], "an import logs its new Days, not its readings")

        let insulin = try store.add(InsulinLog(time: utc("2013-09-13T12:00:00Z"), units: 3))
        _ = try store.update(insulin.id, with: InsulinLog(time: utc("2013-09-13T12:00:00Z"), units: 4))
        try store.remove(insulin.id)
        let uid = try store.syncCurrentRows(.insulin, keys: []).rows
        XCTAssertEqual(uid, [])
        let changes = try store.syncChanges(after: imported.last!.sequence, limit: 100)
        XCTAssertEqual(changes.map(\.entity), [.insulin, .insulin, .insulin])
        XCTAssertEqual(Set(changes.map(\.key)).count, 1)
        XCTAssertEqual(try store.syncCurrentRows(.insulin, keys: [changes[0].key]).rows, [], "removed: no current row")

        // Re-tagging every reading is not an edit of the app's glucose logs.
        _ = try store.add(GlucoseLog(time: utc("2013-09-13T13:00:00Z"), value: 150))
        let last = try store.syncChanges(after: 0, limit: 1000).last!.sequence
        try store.setThresholds(try GlucoseThresholds(veryLow: 50, low: 65, high: 160, veryHigh: 240))
        XCTAssertEqual(try store.syncChanges(after: last, limit: 100), [])
    }

    /// An import writes its readings with the connection's triggers off (they would do nothing
    /// for a device's rows): they are on again afterwards, for the app's logs through the same
    /// connection, whether their statement was prepared before the import or after it.
    func testTriggersAreOnForLogsBeforeAndAfterAnImport() throws {
        let file = try StoreFile()
        let store = try file.open()
        _ = try store.add(GlucoseLog(time: utc("2013-09-13T06:00:00Z"), value: 140))
        _ = try store.save(batch(readings(count: 130, from: utc("2013-09-13T07:00:00Z"))))
        _ = try store.add(GlucoseLog(time: utc("2013-09-13T19:00:00Z"), value: 150))
        _ = try store.save(batch(readings(count: 140, from: utc("2013-09-13T07:00:00Z"))))
        _ = try store.add(GlucoseLog(time: utc("2013-09-13T20:00:00Z"), value: 160))

        XCTAssertEqual(try sqlite3(file.path, "SELECT count(*) FROM glucose WHERE source_id IS NOT NULL AND uid IS NULL;"), "140")
        XCTAssertEqual(try sqlite3(file.path, "SELECT count(*) FROM glucose WHERE source_id IS NULL AND uid IS NOT NULL;"), "3")
        XCTAssertEqual(try store.syncChanges(after: 0, limit: 1000).filter { $0.entity == .glucose }.count, 3)
    }

    /// A store that held logs before v8: each gets a uid and one change entry, readings none.
    func testV8GivesTheLogsOfAnOlderStoreUidsAndLogsThem() throws {
        let file = try olderStore(
            migratedUpTo: "v4-glucose-note",
            holding: """
                INSERT INTO day (date) VALUES ('2013-09-13');
                INSERT INTO source (family, serial) VALUES ('dexcom', 'SM1');
                INSERT INTO glucose (day_id, time, mgdl, tag, source_id, device_record_key)
                    VALUES (1, '2013-09-13 08:00:00.000', 112, 'in-range', 1, 'egv:1');
                INSERT INTO glucose (day_id, time, mgdl, tag) VALUES (1, '2013-09-13 09:00:00.000', 130, 'in-range');
                INSERT INTO meal (day_id, time, name) VALUES (1, '2013-09-13 12:00:00.000', 'Soup');
                INSERT INTO stress (day_id, start_time) VALUES (1, '2013-09-13 13:00:00.000');
                """)
        let store = try file.open(zone: "UTC")
        XCTAssertEqual(try sqlite3(file.path, "SELECT count(*) FROM glucose WHERE uid IS NULL;"), "1", "the reading has none")
        let changes = try store.syncChanges(after: 0, limit: 100)
        XCTAssertEqual(changes.map(\.entity), [SyncEntity.day, .glucose, .meal, .stress])
        XCTAssertEqual(changes[2].key, try sqlite3(file.path, "SELECT uid FROM meal;"))
        XCTAssertEqual(try store.syncCurrentRows(.meal, keys: [changes[2].key]).values(of: "name"), [SyncValue.text("Soup")])
    }

    func testDeviceFeedsReadFromAnIdCursor() throws {
        let file = try StoreFile()
        let store = try file.open()
        _ = try store.save(batch(readings(count: 25, from: utc("2013-09-13T07:00:00Z"))))
        let first = try store.syncRows(.glucoseReadings, after: 0, limit: 10)
        XCTAssertEqual(first.rows.count, 10)
        XCTAssertEqual(first.values(of: "device_record_key").first, .text("egv:1"))
        guard case .integer(let last)? = first.values(of: "id").last else { return XCTFail("no id column") }
        let rest = try store.syncRows(.glucoseReadings, after: last, limit: 100)
        XCTAssertEqual(rest.rows.count, 15)
        XCTAssertEqual(try store.syncRows(.sources, after: 0, limit: 10).values(of: "serial"), [.text("SM12345678")])
        XCTAssertFalse(try store.syncStoreID().isEmpty)
    }
}
