import Foundation
import GRDB
import ImportTestSupport
import Model
import TestSupport
import XCTest

@testable import Store

/// Day summaries: food totals, time in range, episode flags, filters; at the scale of a year.
final class SummaryTests: XCTestCase {
    func testFoodTotalsAndTimeInRange() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "America/Los_Angeles")
        // 2013-09-13 in Los Angeles: 07:00 UTC on the 13th to 07:00 UTC on the 14th.
        for (hour, value) in [(8, 50.0), (9, 60), (10, 100), (11, 150), (12, 180), (13, 200), (14, 260), (15, 120)] {
            try store.add(GlucoseLog(time: utc(String(format: "2013-09-13T%02d:00:00Z", hour)), value: value))
        }
        try store.add(MealLog(time: utc("2013-09-13T15:00:00Z"), name: "Oatmeal", carbs: 45, protein: 8, fat: 5))
        try store.add(MealLog(time: utc("2013-09-14T01:30:00Z"), name: "Dinner", carbs: 60.5, protein: 30, fat: 20))
        try store.add(MealLog(time: utc("2013-09-14T07:30:00Z"), name: "Breakfast", carbs: 30))

        let days = try store.recentDays(2)
        XCTAssertEqual(days.map(\.date.description), ["2013-09-14", "2013-09-13"])
        let day = days[1]
        XCTAssertEqual(day.glucoseCount, 8)
        XCTAssertEqual(day.low, 50)
        XCTAssertEqual(day.high, 260)
        XCTAssertEqual(day.average, 1120.0 / 8)
        XCTAssertEqual(day.tagCounts, [.hypoLevel2: 1, .hypoLevel1: 1, .inRange: 4, .hyperLevel1: 1, .hyperLevel2: 1])
        XCTAssertEqual(day.timeInRange, 0.5)
        XCTAssertEqual(day.share(of: .hyperLevel2), 0.125)
        XCTAssertEqual(day.carbs, 105.5)
        XCTAssertEqual(day.protein, 38)
        XCTAssertEqual(day.fat, 25)
        XCTAssertTrue(day.hadHypo && day.hadHyper)
        let next = days[0]
        XCTAssertEqual(next.glucoseCount, 0)
        XCTAssertNil(next.timeInRange)
        XCTAssertEqual(next.tagCounts.values.reduce(0, +), 0)
        XCTAssertEqual(next.carbs, 30)
        XCTAssertEqual(next.fat, 0)
    }

    func testEpisodesOverlappingADayInTheStoresZone() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "America/Los_Angeles")
        for date in ["2013-11-01", "2013-11-02", "2013-11-03", "2013-11-04", "2013-11-05", "2013-11-06"] {
            try store.setFavourite(day: DayDate(date)!, true)
        }
        // Illness from 23:00 on the 1st to 01:00 on the 3rd, local (PDT, UTC−7).
        try store.add(IllnessEpisode(start: utc("2013-11-02T06:00:00Z"), end: utc("2013-11-03T08:00:00Z")))
        // Stress ending exactly at the start of the 25-hour 2013-11-03 (07:00 UTC): not on the 3rd.
        try store.add(StressEpisode(start: utc("2013-11-02T20:00:00Z"), end: utc("2013-11-03T07:00:00Z")))
        // A zero-length stress at the last second of the 3rd (PST, UTC−8), and one still open from the 5th.
        try store.add(StressEpisode(start: utc("2013-11-04T07:59:59Z"), end: utc("2013-11-04T07:59:59Z")))
        try store.startEpisode(.stress, at: utc("2013-11-05T20:00:00Z"))

        let days = try store.recentDays(10)
        XCTAssertEqual(days.map(\.date.description), ["2013-11-06", "2013-11-05", "2013-11-04", "2013-11-03", "2013-11-02", "2013-11-01"])
        XCTAssertEqual(days.map(\.hadIllness), [false, false, false, true, true, true])
        XCTAssertEqual(days.map(\.hadStress), [true, true, false, true, true, false])
        XCTAssertEqual(try store.recentDays(10, filter: .hadIllness).map(\.date.description), ["2013-11-03", "2013-11-02", "2013-11-01"])
        XCTAssertEqual(try store.recentDays(10, filter: [.hadIllness, .hadStress]).map(\.date.description), ["2013-11-03", "2013-11-02"])
        XCTAssertEqual(try store.recentDays(1, filter: .hadStress).map(\.date.description), ["2013-11-06"])
        XCTAssertEqual(DayDate("2013-11-03")!.start(in: store.timeZone), utc("2013-11-03T07:00:00Z"))
        XCTAssertEqual(DayDate("2013-11-04")!.start(in: store.timeZone), utc("2013-11-04T08:00:00Z"))
        XCTAssertEqual(DayDate("2013-03-10")!.start(in: store.timeZone), utc("2013-03-10T08:00:00Z"))
    }

    /// A year of 5-minute readings (~105,000 rows), meals, exercise and episodes: the summary of the
    /// last 30 Days reads only indexes, never a whole table, and never sorts. The time it takes
    /// is printed, not asserted.
    func testYearOfReadingsSummariesUseIndexes() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        let days = 365
        let started = Date()
        // In a UTC store, a Day is the date of the instant: the rows are made by SQLite, in one transaction.
        try store.database.write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(days - 1))
                    INSERT INTO day (date) SELECT date('2013-01-01', '+' || i || ' days') FROM n;
                    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(days * 288 - 1))
                    INSERT INTO glucose (day_id, time, mgdl, tag)
                    SELECT 1 + i / 288, strftime('%Y-%m-%d %H:%M:%f', 1356998400 + i * 300, 'unixepoch'),
                           40 + (i * 37) % 260, 'in-range' FROM n;
                    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(days * 3 - 1))
                    INSERT INTO meal (day_id, time, name, carbs_g, protein_g, fat_g)
                    SELECT 1 + i / 3, strftime('%Y-%m-%d %H:%M:%f', 1356998400 + (i / 3) * 86400 + 25200 + (i % 3) * 18000, 'unixepoch'),
                           'Meal', 40, 15, 10 FROM n;
                    INSERT INTO exercise (day_id, time, name, duration_seconds, intensity)
                    SELECT id, date || ' 18:00:00.000', 'Walking', 1800, 'light' FROM day WHERE id % 2 = 0;
                    INSERT INTO stress (day_id, start_time, end_time)
                    SELECT id, date || ' 09:00:00.000', date || ' 11:00:00.000' FROM day WHERE id % 7 = 0;
                    INSERT INTO illness (day_id, start_time, end_time)
                    SELECT id, date || ' 20:00:00.000', date(date, '+2 days') || ' 08:00:00.000' FROM day WHERE id % 30 = 0;
                    """)
        }
        // Tags as the store computes them, through its own re-tagging.
        try store.setThresholds(.consensus)
        let inserted = Date().timeIntervalSince(started)
        XCTAssertEqual(try count("glucose", in: file.path), days * 288)

        // Plans, without and with statistics: indexes only, no scan of a log table, no sort.
        for analyzed in [false, true] {
            if analyzed { try store.database.write { db in try db.execute(sql: "ANALYZE") } }
            for filter: DayFilter in [[], .hadHypo, [.hadStress, .hadIllness, .hadExercise, .hadHyper]] {
                let details = try store.database.read { db in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + DaySummaryQuery.sql(filter), arguments: [30])
                        .map { $0["detail"] as String }
                }
                let scans = details.filter { $0.hasPrefix("SCAN") && !$0.hasPrefix("SCAN d USING") }
                XCTAssertEqual(scans, [], "analyzed \(analyzed), \(filter): \(details)")
                XCTAssertTrue(details.contains { $0.hasPrefix("SCAN d USING") && $0.contains("sqlite_autoindex_day_1") }, "\(details)")
                XCTAssertFalse(details.contains { $0.contains("TEMP B-TREE") }, "\(details)")
                let glucose = details.filter { $0.hasPrefix("SEARCH g ") }
                XCTAssertFalse(glucose.isEmpty)
                XCTAssertTrue(glucose.allSatisfy { $0.contains("USING COVERING INDEX glucose_summary_by_day") }, "\(glucose)")
                XCTAssertTrue(details.contains { $0.hasPrefix("SEARCH m USING INDEX meal_by_day (day_id=?)") }, "\(details)")
                XCTAssertTrue(details.contains { $0.hasPrefix("SEARCH x USING INDEX stress_by_time (start_time<?)") }, "\(details)")
                XCTAssertTrue(details.contains { $0.hasPrefix("SEARCH x USING INDEX illness_by_time (start_time<?)") }, "\(details)")
            }
        }

        let clock = ContinuousClock()
        var summaries: [DaySummary] = []
        let last30 = try clock.measure { summaries = try store.recentDays(30) }
        var hypoDays: [DaySummary] = []
        let hypo30 = try clock.measure { hypoDays = try store.recentDays(30, filter: [.hadHypo, .hadStress]) }
        print(
            "year-scale summaries: \(days * 288) readings inserted in \(String(format: "%.2f", inserted)) s; "
                + "recentDays(30) took \(last30); recentDays(30, [.hadHypo, .hadStress]) took \(hypo30)")

        XCTAssertEqual(summaries.count, 30)
        XCTAssertEqual(summaries.first?.date.description, "2013-12-31")
        XCTAssertEqual(summaries.map(\.glucoseCount), Array(repeating: 288, count: 30))
        XCTAssertEqual(summaries.first?.carbs, 120)
        XCTAssertEqual(summaries.first.map { $0.tagCounts.values.reduce(0, +) }, 288)
        XCTAssertEqual(hypoDays.count, 30)
        XCTAssertTrue(hypoDays.allSatisfy { $0.hadHypo && $0.hadStress })
    }
}
