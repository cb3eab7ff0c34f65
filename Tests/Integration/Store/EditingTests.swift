import Foundation
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

/// Editing and removing logs, and what happens to their Days.
final class EditingTests: XCTestCase {
    func testEditingATimeMovesTheLogToAnotherDayAndKeepsItsID() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "America/Los_Angeles")
        var lunch = try store.add(MealLog(time: utc("2013-09-13T19:00:00Z"), name: "Lunch", carbs: 50))
        let other = try store.add(MealLog(time: utc("2013-09-13T20:00:00Z"), name: "Snack", carbs: 10))
        XCTAssertEqual(lunch.day.description, "2013-09-13")

        // 06:30 UTC on the 14th is still the 13th in Los Angeles; 07:30 is the 14th.
        lunch.log.time = utc("2013-09-14T06:30:00Z")
        lunch = try store.update(lunch)
        XCTAssertEqual(lunch.day.description, "2013-09-13")
        lunch.log.time = utc("2013-09-14T07:30:00Z")
        lunch.log.carbs = 55
        let moved = try store.update(lunch)
        XCTAssertEqual(moved.id, lunch.id)
        XCTAssertEqual(moved.day.description, "2013-09-14")
        XCTAssertEqual(moved.carbs, 55)
        XCTAssertEqual(try store.logs(MealLog.self, of: DayDate("2013-09-13")!), [other])
        XCTAssertEqual(try store.logs(MealLog.self, of: DayDate("2013-09-14")!), [moved])
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT d.date FROM meal m JOIN day d ON d.id = m.day_id WHERE m.name = 'Lunch';"),
            "2013-09-14")

        // Across the fall-back change: the 25-hour Day 2013-11-03 ends at 08:00 UTC on the 4th.
        let dose = try store.add(InsulinLog(time: utc("2013-11-04T07:59:59Z"), units: 3))
        XCTAssertEqual(dose.day.description, "2013-11-03")
        let later = try store.update(dose.id, with: InsulinLog(time: utc("2013-11-04T08:00:00Z"), units: 3))
        XCTAssertEqual(later.day.description, "2013-11-04")
    }

    func testEditingAGlucoseValueRetagsIt() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        var meter = try store.add(GlucoseLog(time: utc("2013-09-13T08:00:00Z"), value: 120))
        XCTAssertEqual(meter.tag, .inRange)
        meter.log.value = 3.5
        meter.log.unit = .millimolesPerLiter
        meter = try store.update(meter)
        XCTAssertEqual(meter.tag, .hypoLevel1)
        XCTAssertEqual(meter.value, 3.5)
        XCTAssertEqual(try store.recentDays(1).first?.hadHypo, true)
    }

    func testRemovingTheLastLogOfADayLeavesTheDay() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        let dose = try store.add(InsulinLog(time: utc("2013-09-13T08:00:00Z"), units: 2))
        let moved = try store.add(MealLog(time: utc("2013-09-12T08:00:00Z"), name: "Toast"))
        try store.remove(dose.id)
        _ = try store.update(moved.id, with: MealLog(time: utc("2013-09-14T08:00:00Z"), name: "Toast"))
        XCTAssertEqual(try store.logs(InsulinLog.self, of: DayDate("2013-09-13")!), [])
        XCTAssertEqual(try store.recentDays(10).map(\.date.description), ["2013-09-14", "2013-09-13", "2013-09-12"])
        XCTAssertEqual(try store.recentDays(10).map(\.glucoseCount), [0, 0, 0])
        XCTAssertStoreError(.notFound(kind: .insulin, id: dose.id.rawValue)) { try store.remove(dose.id) }
        XCTAssertStoreError(.notFound(kind: .insulin, id: dose.id.rawValue)) {
            try store.update(dose.id, with: InsulinLog(time: utc("2013-09-13T08:00:00Z"), units: 1))
        }
        XCTAssertStoreError(.notFound(kind: .insulin, id: dose.id.rawValue)) { try store.log(dose.id) }
    }

    func testImportedLogsAreReadOnly() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        _ = try store.save(batch([reading(1, at: utc("2013-09-13T08:00:00Z"), 100)]))
        try sqlite3(
            file.path,
            """
            INSERT INTO exercise (day_id, time, name, duration_seconds, intensity, source_id, device_record_key)
            VALUES (1, '2013-09-13 09:00:00.000', 'Running', 1200, 'vigorous', 1, 'session:1');
            """)
        let before = try dump(file.path)
        let imported = try XCTUnwrap(store.logs(GlucoseLog.self).first)
        let error = StoreError.importedLogIsReadOnly(kind: .glucose, id: imported.id.rawValue, source: "dexcom:SM12345678")
        XCTAssertStoreError(error) { try store.remove(imported.id) }
        XCTAssertStoreError(error) { try store.update(imported.id, with: GlucoseLog(time: imported.time, value: 90)) }
        XCTAssertTrue(error.description.contains("re-import"), error.description)
        let run = try XCTUnwrap(store.logs(ExerciseLog.self).first)
        XCTAssertEqual(run.source?.description, "dexcom:SM12345678")
        XCTAssertStoreError(.importedLogIsReadOnly(kind: .exercise, id: run.id.rawValue, source: "dexcom:SM12345678")) {
            try store.remove(run.id)
        }
        XCTAssertEqual(try dump(file.path), before)
        // An app-entered glucose value can be removed.
        let meter = try store.add(GlucoseLog(time: utc("2013-09-13T10:00:00Z"), value: 95))
        try store.remove(meter.id)
        XCTAssertEqual(try store.logs(GlucoseLog.self).map(\.id), [imported.id])
    }
}
