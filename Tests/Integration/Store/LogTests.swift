import Foundation
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

/// Typed logs through the generic add path, and fetching them per kind.
final class LogTests: XCTestCase {
    func testEveryKindIsAddedToTheDayOfItsTimeAndFetchedByTime() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "America/Los_Angeles")
        // Offered out of order: fetched by time.
        let dinner = try store.add(MealLog(time: utc("2013-09-14T01:30:00Z"), name: "Dinner", carbs: 60, protein: 30, fat: 20))
        let oatmeal = try store.add(MealLog(time: utc("2013-09-13T14:30:00Z"), name: "Oatmeal", carbs: 45, protein: 8, fat: 5))
        let dose = try store.add(InsulinLog(time: utc("2013-09-13T15:00:00Z"), units: 4.5))
        let meter = try store.add(GlucoseLog(time: utc("2013-09-13T15:00:00.250Z"), value: 5.5, unit: .millimolesPerLiter))
        let walk = try store.add(ExerciseLog(time: utc("2013-09-14T02:00:00Z"), name: "Walking", duration: 1800, intensity: .light))
        let flu = try store.add(IllnessEpisode(start: utc("2013-09-13T16:00:00Z"), end: utc("2013-09-13T18:30:00Z")))
        let exam = try store.add(StressEpisode(start: utc("2013-09-13T22:00:00Z")))
        let day = DayDate("2013-09-13")!

        XCTAssertEqual(try store.logs(MealLog.self, of: day), [oatmeal, dinner])
        XCTAssertEqual(oatmeal.log, MealLog(time: utc("2013-09-13T14:30:00Z"), name: "Oatmeal", carbs: 45, protein: 8, fat: 5))
        XCTAssertEqual(oatmeal.day, day)
        XCTAssertEqual(dinner.day, day, "01:30 UTC is 18:30 the day before in Los Angeles")
        XCTAssertEqual(dinner.carbs, 60)
        XCTAssertFalse(dinner.isImported)
        XCTAssertEqual(try store.logs(InsulinLog.self, of: day).map(\.units), [4.5])
        XCTAssertEqual(dose.id.description, "insulin #\(dose.id.rawValue)")
        XCTAssertEqual(try store.logs(ExerciseLog.self, of: day), [walk])
        XCTAssertEqual(walk.duration, 1800)
        XCTAssertEqual(try store.logs(IllnessEpisode.self, of: day), [flu])
        XCTAssertEqual(flu.duration, 9000)
        XCTAssertEqual(try store.logs(StressEpisode.self, of: day), [exam])
        XCTAssertTrue(exam.isOpen)
        XCTAssertNil(exam.duration)
        XCTAssertEqual(exam.log.duration(at: utc("2013-09-13T23:00:00Z")), 3600)

        // Glucose: kept in mg/dL with the unit it was entered in, tagged by the store.
        XCTAssertEqual(meter.value, 5.5)
        XCTAssertEqual(meter.unit, .millimolesPerLiter)
        XCTAssertEqual(meter.mgdl, 5.5 * GlucoseUnit.mgdlPerMmol, accuracy: 1e-9)
        XCTAssertEqual(meter.tag, .inRange)
        XCTAssertEqual(meter.kind, .fingerstick)
        XCTAssertEqual(meter.time, utc("2013-09-13T15:00:00.250Z"))
        XCTAssertEqual(try store.add(GlucoseLog(time: utc("2013-09-13T16:00:00Z"), value: 3.8, unit: .millimolesPerLiter)).tag, .hypoLevel1)
        XCTAssertEqual(try store.add(GlucoseLog(time: utc("2013-09-13T17:00:00Z"), value: 181)).tag, .hyperLevel1)

        // The app's rows are the rows every reader sees.
        let all = try store.logs(of: day)
        XCTAssertEqual(all.meals.map(\.name), ["Oatmeal", "Dinner"])
        XCTAssertEqual(all.glucose.map(\.tag), [.inRange, .hypoLevel1, .hyperLevel1])
        XCTAssertNil(all.glucose.first?.source)
        XCTAssertEqual(all.insulin, [dose])
        XCTAssertEqual(all.exercise, [walk])
        XCTAssertEqual(all.illness, [flu])
        XCTAssertEqual(all.stress, [exam])
        XCTAssertEqual(all.glucose.first, meter)
        XCTAssertEqual(
            try sqlite3(
                file.path,
                """
                SELECT group_concat(d.date || ' ' || m.time || ' ' || m.name, '; ') FROM meal m JOIN day d ON d.id = m.day_id;
                """), "2013-09-13 2013-09-14 01:30:00.000 Dinner; 2013-09-13 2013-09-13 14:30:00.000 Oatmeal")
        XCTAssertEqual(try count("day", in: file.path), 1)
    }

    func testDaysAreCreatedAtLocalMidnight() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "America/Los_Angeles")
        let before = try store.add(InsulinLog(time: utc("2013-09-13T06:59:59.999Z"), units: 1))
        let after = try store.add(InsulinLog(time: utc("2013-09-13T07:00:00Z"), units: 2))
        XCTAssertEqual(before.day.description, "2013-09-12")
        XCTAssertEqual(after.day.description, "2013-09-13")
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT group_concat(date, ' ') FROM (SELECT date FROM day ORDER BY date);"),
            "2013-09-12 2013-09-13")
        XCTAssertEqual(try store.logs(InsulinLog.self, of: DayDate("2013-09-12")!).map(\.units), [1])
        XCTAssertEqual(try store.logs(InsulinLog.self, of: DayDate("2013-09-13")!).map(\.units), [2])
    }

    func testDaysAcrossDaylightSavingChanges() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "America/Los_Angeles")
        let cases: [(String, String)] = [
            // Spring forward, 2013-03-10: a 23-hour Day from 08:00 to 07:00 UTC.
            ("2013-03-10T07:59:59Z", "2013-03-09"), ("2013-03-10T08:00:00Z", "2013-03-10"),
            ("2013-03-11T06:59:59Z", "2013-03-10"), ("2013-03-11T07:00:00Z", "2013-03-11"),
            // Fall back, 2013-11-03: a 25-hour Day from 07:00 to 08:00 UTC.
            ("2013-11-03T06:59:59Z", "2013-11-02"), ("2013-11-03T07:00:00Z", "2013-11-03"),
            ("2013-11-04T07:59:59Z", "2013-11-03"), ("2013-11-04T08:00:00Z", "2013-11-04"),
        ]
        for (instant, date) in cases {
            XCTAssertEqual(try store.add(MealLog(time: utc(instant), name: instant)).day.description, date, instant)
        }
        XCTAssertEqual(
            try store.logs(MealLog.self, of: DayDate("2013-11-03")!).map(\.name),
            ["2013-11-03T07:00:00Z", "2013-11-04T07:59:59Z"])
        XCTAssertEqual(
            try store.logs(MealLog.self, of: DayDate("2013-03-10")!).map(\.name),
            ["2013-03-10T08:00:00Z", "2013-03-11T06:59:59Z"])
    }

    func testLogsBetweenTwoInstantsAreHalfOpenAndByTime() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        let start = utc("2013-09-13T00:00:00Z")
        for hour in [5, 1, 3, 2, 4] {
            try store.add(MealLog(time: start.addingTimeInterval(Double(hour) * 3600), name: "meal \(hour)", carbs: 10))
        }
        XCTAssertEqual(
            try store.logs(MealLog.self, from: start.addingTimeInterval(2 * 3600), to: start.addingTimeInterval(4 * 3600)).map(\.name),
            ["meal 2", "meal 3"])
        XCTAssertEqual(try store.logs(MealLog.self, from: start.addingTimeInterval(4 * 3600)).map(\.name), ["meal 4", "meal 5"])
        XCTAssertEqual(try store.logs(MealLog.self).map(\.name), ["meal 1", "meal 2", "meal 3", "meal 4", "meal 5"])
        XCTAssertEqual(try store.logs(InsulinLog.self, from: start), [])
        // The same through a window.
        XCTAssertEqual(
            try store.logs(MealLog.self, in: .between(from: start.addingTimeInterval(4 * 3600), to: nil)).map(\.name),
            ["meal 4", "meal 5"])
        XCTAssertEqual(try store.logs(MealLog.self, in: .day(DayDate("2013-09-13")!)), try store.logs(MealLog.self, in: .everything))
        XCTAssertEqual(try store.logs(MealLog.self, in: .day(DayDate("2013-09-14")!)), [])
    }

    func testImportedRowsAreReadWithTheirSource() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        _ = try store.save(batch([reading(7, at: utc("2013-09-13T08:00:00Z"), 100)]))
        let imported = try store.logs(GlucoseLog.self, of: DayDate("2013-09-13")!)
        XCTAssertEqual(imported.count, 1)
        XCTAssertEqual(imported.first?.source, testSource)
        XCTAssertEqual(imported.first?.recordKey, "egv:7")
        XCTAssertEqual(imported.first?.isImported, true)
        XCTAssertEqual(imported.first?.kind, .sensor)
        XCTAssertEqual(try store.log(imported[0].id), imported[0])
    }

    func testInvalidLogsAreRefusedAndNothingIsWritten() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        let time = utc("2013-09-13T08:00:00Z")
        let before = try dump(file.path)
        XCTAssertStoreError(.invalidLog(kind: .insulin, reason: "0.0 units is not within 0 < units < 1000")) {
            try store.add(InsulinLog(time: time, units: 0))
        }
        XCTAssertStoreError(.invalidLog(kind: .meal, reason: "carbs of -1.0 g is not a weight ≥ 0")) {
            try store.add(MealLog(time: time, carbs: -1))
        }
        XCTAssertStoreError(.invalidLog(kind: .exercise, reason: "an exercise needs a name")) {
            try store.add(ExerciseLog(time: time, name: "", duration: 60, intensity: .moderate))
        }
        XCTAssertStoreError(.invalidLog(kind: .glucose, reason: "1000.0 mg/dL is not within 0 < mg/dL < 1000")) {
            try store.add(GlucoseLog(time: time, value: 1000))
        }
        XCTAssertStoreError(.invalidLog(kind: .illness, reason: "it ends at 2013-09-13 08:00, before it starts at 2013-09-13 08:00:01 (GMT)")) {
            try store.add(IllnessEpisode(start: time.addingTimeInterval(1), end: time))
        }
        XCTAssertThrowsError(try store.add(InsulinLog(time: Date(timeIntervalSince1970: 1e12), units: 1)))
        XCTAssertEqual(try dump(file.path), before)
        XCTAssertStoreError(.notFound(kind: .meal, id: 42)) { try store.log(LogID<MealLog>(42)) }
        XCTAssertTrue(StoreError.invalidLog(kind: .meal, reason: "x").description.contains("nothing was stored"))
    }
}
