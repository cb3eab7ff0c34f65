import Foundation
import GRDB
import ImportTestSupport
import Model
import TestSupport
import XCTest

@testable import Store

/// Favourite Days, meals and exercise sessions.
final class FavouriteTests: XCTestCase {
    func testFavouriteDaysByDate() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        try store.add(InsulinLog(time: utc("2013-09-13T08:00:00Z"), units: 2))
        XCTAssertTrue(try store.toggleFavourite(day: DayDate("2013-09-13")!))
        // A Day without logs is created to hold the mark.
        try store.setFavourite(day: DayDate("2013-09-01")!, true)
        try store.setFavourite(day: DayDate("2013-09-20")!, true)
        XCTAssertEqual(try store.favouriteDays().map(\.description), ["2013-09-01", "2013-09-13", "2013-09-20"])
        XCTAssertEqual(try store.recentDays(3).map(\.isFavourite), [true, true, true])
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT group_concat(name, ' ') FROM (SELECT name FROM favourite ORDER BY name);"),
            "2013-09-01 2013-09-13 2013-09-20")

        XCTAssertFalse(try store.toggleFavourite(day: DayDate("2013-09-13")!))
        try store.setFavourite(day: DayDate("2013-09-20")!, false)
        try store.setFavourite(day: DayDate("2013-09-20")!, false)
        XCTAssertEqual(try store.favouriteDays().map(\.description), ["2013-09-01"])
        XCTAssertEqual(try count("favourite", in: file.path), 1, "unmarking removes the favourite row")
        // Removing the last log keeps the (favourite) Day.
        try store.setFavourite(day: DayDate("2013-09-13")!, true)
        try store.remove(try XCTUnwrap(store.logs(InsulinLog.self).first).id)
        XCTAssertEqual(try store.favouriteDays().map(\.description), ["2013-09-01", "2013-09-13"])
    }

    func testFavouriteMealsAndExerciseByName() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        let oatmeal = try store.add(MealLog(time: utc("2013-09-13T08:00:00Z"), name: "oatmeal", carbs: 45, isFavourite: true))
        XCTAssertTrue(oatmeal.isFavourite)
        try store.add(MealLog(time: utc("2013-09-13T12:00:00Z"), name: "Sandwich", carbs: 40))
        let apple = try store.add(MealLog(time: utc("2013-09-13T15:00:00Z"), name: "Apple", carbs: 15))
        let favouriteApple = try store.setFavourite(apple.id, true)
        XCTAssertTrue(favouriteApple.isFavourite)
        let bagel = try store.add(MealLog(time: utc("2013-09-12T08:00:00Z"), name: "Bagel", carbs: 50, isFavourite: true))
        XCTAssertEqual(try store.favourites(MealLog.self).map(\.name), ["Apple", "Bagel", "oatmeal"])

        // Written through update like any other value.
        var unmarked = bagel
        unmarked.log.isFavourite = false
        XCTAssertFalse(try store.update(unmarked).isFavourite)
        XCTAssertEqual(try store.favourites(MealLog.self).map(\.name), ["Apple", "oatmeal"])
        // Editing a favourite keeps it favourite; removing it removes its favourite row.
        var edited = oatmeal
        edited.log.carbs = 50
        XCTAssertTrue(try store.update(edited).isFavourite)
        try store.remove(oatmeal.id)
        XCTAssertEqual(try store.favourites(MealLog.self).map(\.name), ["Apple"])
        XCTAssertEqual(try count("favourite", in: file.path), 1)
        XCTAssertStoreError(.invalidLog(kind: .meal, reason: "a favourite meal needs a name to be found by")) {
            try store.add(MealLog(time: utc("2013-09-13T18:00:00Z"), carbs: 10, isFavourite: true))
        }

        // Exercise, including a session imported from a device: marking it changes no device data.
        try store.add(ExerciseLog(time: utc("2013-09-13T18:00:00Z"), name: "walking", duration: 1800, intensity: .light, isFavourite: true))
        _ = try store.save(batch([reading(1, at: utc("2013-09-13T08:00:00Z"), 100)]))
        try sqlite3(
            file.path,
            """
            INSERT INTO exercise (day_id, time, name, duration_seconds, intensity, source_id, device_record_key)
            VALUES (1, '2013-09-13 09:00:00.000', 'Running', 1200, 'vigorous', 1, 'session:1');
            """)
        let run = try XCTUnwrap(store.logs(ExerciseLog.self).first { $0.isImported })
        XCTAssertTrue(try store.setFavourite(run.id, true).isFavourite)
        XCTAssertEqual(try store.favourites(ExerciseLog.self).map(\.name), ["Running", "walking"])
        XCTAssertStoreError(.notFound(kind: .exercise, id: 99)) { try store.setFavourite(LogID<ExerciseLog>(99), true) }
    }

    func testFavouriteQueriesUseTheirIndexes() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        try store.database.write { db in try db.execute(sql: "ANALYZE") }
        func plan(_ sql: String) throws -> [String] {
            try store.database.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
            }
        }
        XCTAssertEqual(try plan(FavouriteQuery.days), ["SCAN day USING INDEX day_favourites_by_date"])
        for (kind, index) in [(LogKind.meal, "meal_favourites_by_name"), (.exercise, "exercise_favourites_by_name")] {
            let details = try plan(LogQuery.sql(kind, where: FavouriteQuery.condition, orderBy: FavouriteQuery.orderBy))
            XCTAssertEqual(details.first, "SCAN t USING INDEX \(index)", "\(details)")
            XCTAssertFalse(details.contains { $0.contains("TEMP B-TREE") }, "\(details)")
        }
    }
}
