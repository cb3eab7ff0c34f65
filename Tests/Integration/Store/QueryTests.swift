import Foundation
import GRDB
import ImportTestSupport
import Model
import TestSupport
import XCTest

@testable import Store

final class QueryTests: XCTestCase {
    func testGlucoseRangeIsHalfOpenAndAscending() throws {
        let file = try StoreFile()
        let store = try file.open()
        let start = utc("2013-09-13T12:00:00Z")
        // Offered newest first: the store returns them by time.
        _ = try store.save(batch(readings(count: 12, from: start).reversed()))
        let range = try store.glucose(from: start.addingTimeInterval(600), to: start.addingTimeInterval(1800))
        XCTAssertEqual(range.map(\.recordKey), ["egv:3", "egv:4", "egv:5", "egv:6"])
        XCTAssertEqual(range.map(\.time), (2..<6).map { start.addingTimeInterval(Double($0) * 300) })
        XCTAssertEqual(try store.glucose(from: start.addingTimeInterval(3000)).count, 2)
        XCTAssertEqual(try store.glucose(to: start.addingTimeInterval(1)).count, 1)
        XCTAssertEqual(try store.glucose().count, 12)
    }

    func testLogsOfADayAreSortedPerKindWithAppRows() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "America/Los_Angeles")
        _ = try store.save(
            batch([
                reading(2, at: utc("2013-09-13T20:00:00Z"), 150),
                reading(1, at: utc("2013-09-13T08:00:00Z"), 90),
                reading(3, at: utc("2013-09-14T06:59:59Z"), 130),
                reading(4, at: utc("2013-09-14T07:00:00Z"), 95),
            ]))
        // The app's own rows, written as the app writes them (its own time text, its own Day lookup).
        try sqlite3(
            file.path,
            """
            INSERT INTO favourite (name) VALUES ('Oatmeal'), ('Evening walk');
            INSERT INTO day (date) VALUES ('2013-09-13') ON CONFLICT (date) DO NOTHING;
            INSERT INTO insulin (day_id, time, units)
                SELECT id, '2013-09-13 19:00:00.000', 4.5 FROM day WHERE date = '2013-09-13';
            INSERT INTO insulin (day_id, time, units)
                SELECT id, '2013-09-13 15:00:00.000', 2 FROM day WHERE date = '2013-09-13';
            INSERT INTO meal (day_id, time, name, carbs_g, protein_g, fat_g, favourite_id)
                SELECT id, '2013-09-14 01:30:00.000', 'Dinner', 60, 30, 20, NULL FROM day WHERE date = '2013-09-13';
            INSERT INTO meal (day_id, time, name, carbs_g, protein_g, fat_g, favourite_id)
                SELECT id, '2013-09-13 14:30:00.000', 'Oatmeal', 45, 8, 5, 1 FROM day WHERE date = '2013-09-13';
            INSERT INTO exercise (day_id, time, name, duration_seconds, intensity, favourite_id)
                SELECT id, '2013-09-14 02:00:00.000', 'Walking', 1800, 'light', 2 FROM day WHERE date = '2013-09-13';
            INSERT INTO illness (day_id, start_time, end_time)
                SELECT id, '2013-09-13 16:00:00.000', '2013-09-13 18:30:00.000' FROM day WHERE date = '2013-09-13';
            INSERT INTO stress (day_id, start_time, end_time)
                SELECT id, '2013-09-13 22:00:00.000', NULL FROM day WHERE date = '2013-09-13';
            """)
        let logs = try store.logs(of: DayDate("2013-09-13")!)
        XCTAssertEqual(logs.day.description, "2013-09-13")
        XCTAssertEqual(logs.glucose.map(\.mgdl), [90, 150, 130])
        XCTAssertEqual(logs.insulin.map(\.units), [2, 4.5])
        XCTAssertEqual(logs.insulin.map(\.time), [utc("2013-09-13T15:00:00Z"), utc("2013-09-13T19:00:00Z")])
        XCTAssertEqual(logs.meals.map(\.name), ["Oatmeal", "Dinner"])
        XCTAssertEqual(logs.meals.first?.id, LogID(2))
        XCTAssertEqual(logs.meals.first?.day, DayDate("2013-09-13"))
        XCTAssertEqual(
            logs.meals.first?.log,
            MealLog(
                time: utc("2013-09-13T14:30:00Z"), name: "Oatmeal", carbs: 45, protein: 8, fat: 5, isFavourite: true))
        XCTAssertEqual(logs.exercise.map(\.name), ["Walking"])
        XCTAssertEqual(logs.exercise.first?.duration, 1800)
        XCTAssertEqual(logs.exercise.first?.intensity, .light)
        XCTAssertEqual(logs.exercise.first?.isFavourite, true)
        XCTAssertNil(logs.exercise.first?.source)
        XCTAssertEqual(logs.glucose.map(\.source), [testSource, testSource, testSource])
        XCTAssertEqual(logs.glucose.map(\.recordKey), ["egv:1", "egv:2", "egv:3"])
        XCTAssertEqual(logs.illness.first?.duration, 9000)
        XCTAssertEqual(logs.stress.count, 1)
        XCTAssertNil(logs.stress.first?.end)
        XCTAssertEqual(logs.stress.first?.isOpen, true)

        let next = try store.logs(of: DayDate("2013-09-14")!)
        XCTAssertEqual(next.glucose.map(\.mgdl), [95])
        XCTAssertEqual(next.meals, [])
        let empty = try store.logs(of: DayDate("2020-01-01")!)
        XCTAssertEqual(empty, DayLogs(day: DayDate("2020-01-01")!, glucose: [], insulin: [], meals: [], exercise: [], illness: [], stress: []))
    }

    func testRecentDaysSummariesAndFilters() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        _ = try store.save(
            batch([
                // 2013-09-10: in range only.
                reading(1, at: utc("2013-09-10T08:00:00Z"), 100),
                reading(2, at: utc("2013-09-10T09:00:00Z"), 121),
                // 2013-09-11: a hypo.
                reading(3, at: utc("2013-09-11T08:00:00Z"), 60),
                reading(4, at: utc("2013-09-11T09:00:00Z"), 140),
                reading(5, at: utc("2013-09-11T10:00:00Z"), 110),
                // 2013-09-12: a hyper and a hypo.
                reading(6, at: utc("2013-09-12T08:00:00Z"), 251),
                reading(7, at: utc("2013-09-12T09:00:00Z"), 50),
                // 2013-09-13: a hyper.
                reading(8, at: utc("2013-09-13T09:00:00Z"), 200),
            ]))
        try sqlite3(
            file.path,
            """
            INSERT INTO favourite (name) VALUES ('Good day');
            INSERT INTO day (date, favourite_id) VALUES ('2013-09-14', 1);
            UPDATE day SET favourite_id = 1 WHERE date = '2013-09-10';
            INSERT INTO exercise (day_id, time, name, duration_seconds, intensity)
                SELECT id, '2013-09-11 18:00:00.000', 'Running', 2400, 'vigorous' FROM day WHERE date = '2013-09-11';
            """)

        let all = try store.recentDays(10)
        XCTAssertEqual(all.map(\.date.description), ["2013-09-14", "2013-09-13", "2013-09-12", "2013-09-11", "2013-09-10"])
        XCTAssertEqual(all.map(\.glucoseCount), [0, 1, 2, 3, 2])
        XCTAssertEqual(all.map(\.low), [nil, 200, 50, 60, 100])
        XCTAssertEqual(all.map(\.average), [nil, 200, 150.5, 310.0 / 3, 110.5])
        XCTAssertEqual(all.map(\.high), [nil, 200, 251, 140, 121])
        XCTAssertEqual(all.map(\.hadHypo), [false, false, true, true, false])
        XCTAssertEqual(all.map(\.hadHyper), [false, true, true, false, false])
        XCTAssertEqual(all.map(\.hadExercise), [false, false, false, true, false])
        XCTAssertEqual(all.map(\.isFavourite), [true, false, false, false, true])

        XCTAssertEqual(try store.recentDays(2).map(\.date.description), ["2013-09-14", "2013-09-13"])
        XCTAssertEqual(try store.recentDays(10, filter: .hadHypo).map(\.date.description), ["2013-09-12", "2013-09-11"])
        XCTAssertEqual(try store.recentDays(1, filter: .hadHypo).map(\.date.description), ["2013-09-12"])
        XCTAssertEqual(try store.recentDays(10, filter: .hadHyper).map(\.date.description), ["2013-09-13", "2013-09-12"])
        XCTAssertEqual(try store.recentDays(10, filter: [.hadHypo, .hadHyper]).map(\.date.description), ["2013-09-12"])
        XCTAssertEqual(try store.recentDays(10, filter: .hadExercise).map(\.date.description), ["2013-09-11"])
        XCTAssertEqual(try store.recentDays(0), [])
        XCTAssertEqual(try store.recentDays(10, filter: .isFavourite).map(\.date.description), ["2013-09-14", "2013-09-10"])
        XCTAssertEqual(try store.recentDays(10, filter: [.isFavourite, .hadHypo]), [])

        // One Day's summary is the same as in the list.
        XCTAssertEqual(try store.summary(of: DayDate("2013-09-12")!), all[2])
        XCTAssertNil(try store.summary(of: DayDate("2013-09-01")!))
    }

    /// The day queries search glucose through its indexes; none of them reads the whole table.
    func testDayQueriesUseIndexes() throws {
        let file = try StoreFile()
        let store = try file.open()
        _ = try store.save(batch(readings(count: 2000, from: utc("2013-09-01T00:00:00Z"))))
        try store.database.write { db in try db.execute(sql: "ANALYZE") }

        func plan(_ sql: String, _ arguments: StatementArguments) throws -> [String] {
            try store.database.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
            }
        }
        func assertIndexed(_ details: [String], file: StaticString = #filePath, line: UInt = #line) {
            let glucoseScans = details.filter { $0.hasPrefix("SCAN g") || $0.contains("SCAN glucose") }
            XCTAssertEqual(glucoseScans, [], "\(details)", file: file, line: line)
            XCTAssertFalse(details.contains { $0.contains("TEMP B-TREE") }, "\(details)", file: file, line: line)
        }

        for filter: DayFilter in [[], .hadHypo, .hadHyper, [.hadHypo, .hadHyper, .hadExercise]] {
            let details = try plan(DaySummaryQuery.sql(filter), [30])
            assertIndexed(details)
            XCTAssertTrue(details.contains { $0.contains("SCAN d USING") && $0.contains("INDEX sqlite_autoindex_day_1") }, "\(details)")
            XCTAssertTrue(details.contains { $0.contains("SEARCH g USING COVERING INDEX glucose_summary_by_day (day_id=?)") }, "\(details)")
            XCTAssertTrue(details.contains { $0.contains("SEARCH e USING COVERING INDEX exercise_by_day (day_id=?)") }, "\(details)")
        }
        // Favourite Days: Days newest first through a date index (the unique one or the partial
        // index of favourites, as SQLite judges), without a sort.
        let favourites = try plan(DaySummaryQuery.sql(.isFavourite), [30])
        assertIndexed(favourites)
        XCTAssertTrue(
            favourites.contains {
                $0.hasPrefix("SCAN d USING") && ($0.contains("sqlite_autoindex_day_1") || $0.contains("day_favourites_by_date"))
            }, "\(favourites)")
        // A Day's summary: the Day found through its date.
        let one = try plan(DaySummaryQuery.sql([], bounds: ["d.date >= ?", "d.date <= ?"]), ["2013-09-02", "2013-09-02", 1])
        assertIndexed(one)
        XCTAssertTrue(one.contains { $0.contains("SEARCH d USING") && $0.contains("(date>? AND date<?)") }, "\(one)")

        let logs = try plan(GlucoseQuery.sql(where: "g.day_id = ?", orderBy: "g.time, g.id"), [1])
        assertIndexed(logs)
        XCTAssertTrue(logs.contains { $0.contains("SEARCH g USING INDEX glucose_by_day (day_id=?)") }, "\(logs)")
        let range = try plan(
            GlucoseQuery.sql(where: "1 AND g.time >= ? AND g.time < ?", orderBy: "g.time, g.id"),
            ["2013-09-02 00:00:00.000", "2013-09-03 00:00:00.000"])
        assertIndexed(range)
        XCTAssertTrue(range.contains { $0.contains("SEARCH g USING INDEX glucose_by_time (time>? AND time<?)") }, "\(range)")
    }

    /// Every kind's logs of a Day and logs between two instants are searched through an index,
    /// in time order, without a sort.
    func testLogQueriesUseIndexes() throws {
        let file = try StoreFile()
        let store = try file.open()
        try store.database.write { db in try db.execute(sql: "ANALYZE") }
        for kind in LogKind.allCases {
            for condition in ["t.day_id = ?", "1 AND t.\(kind.timeColumn) >= ? AND t.\(kind.timeColumn) < ?", "t.id = ?"] {
                let arguments: StatementArguments =
                    condition.contains("day_id") || condition.contains("id =")
                    ? [1] : ["2013-09-02 00:00:00.000", "2013-09-03 00:00:00.000"]
                let details = try store.database.read { db in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + LogQuery.sql(kind, where: condition), arguments: arguments)
                        .map { $0["detail"] as String }
                }
                XCTAssertEqual(details.filter { $0.hasPrefix("SCAN t") || $0.hasPrefix("SCAN d") }, [], "\(kind) \(condition): \(details)")
                XCTAssertFalse(details.contains { $0.contains("TEMP B-TREE") }, "\(kind) \(condition): \(details)")
                XCTAssertTrue(details.first?.hasPrefix("SEARCH t USING") == true, "\(kind) \(condition): \(details)")
            }
        }
    }
}
