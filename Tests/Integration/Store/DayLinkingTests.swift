import Foundation
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

final class DayLinkingTests: XCTestCase {
    func testReadingsNearLocalMidnightGoToTheirLocalDay() throws {
        let file = try StoreFile()
        let store = try file.open(zone: "America/Los_Angeles")
        let summary = try store.save(
            batch([
                reading(1, at: utc("2013-09-13T06:59:59Z"), 100),
                reading(2, at: utc("2013-09-13T07:00:00Z"), 110),
            ]))
        XCTAssertEqual(summary.days.map(\.description), ["2013-09-12", "2013-09-13"])
        XCTAssertEqual(try store.glucose().map(\.day.description), ["2013-09-12", "2013-09-13"])
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT group_concat(d.date || '=' || g.mgdl, ' ') FROM glucose g JOIN day d ON d.id = g.day_id;"),
            "2013-09-12=100.0 2013-09-13=110.0")
    }

    func testDaysAcrossDaylightSavingChanges() throws {
        let file = try StoreFile()
        let zone = TimeZone(identifier: "America/Los_Angeles")!
        let store = try file.open(zone: zone.identifier)
        // Every 5 minutes from 2013-11-01 to 2013-11-06 local: crosses the 25-hour 2013-11-03.
        let fallBack = readings(count: 5 * 288, from: utc("2013-11-01T07:00:00Z"))
        _ = try store.save(batch(fallBack))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        for row in try store.glucose() {
            let parts = calendar.dateComponents([.year, .month, .day], from: row.time)
            XCTAssertEqual(row.day, DayDate(year: parts.year!, month: parts.month!, day: parts.day!), "\(row.time)")
        }
        let summaries = try store.recentDays(10)
        XCTAssertEqual(summaries.map(\.date.description), ["2013-11-05", "2013-11-04", "2013-11-03", "2013-11-02", "2013-11-01"])
        XCTAssertEqual(summaries.map(\.glucoseCount), [288 - 12, 288, 300, 288, 288])
        XCTAssertEqual(DayDate(instant: utc("2013-11-04T07:59:59Z"), timeZone: zone).description, "2013-11-03")
        XCTAssertEqual(DayDate(instant: utc("2013-11-04T08:00:00Z"), timeZone: zone).description, "2013-11-04")
        // The 23-hour spring-forward day.
        XCTAssertEqual(DayDate(instant: utc("2013-03-10T07:59:59Z"), timeZone: zone).description, "2013-03-09")
        XCTAssertEqual(DayDate(instant: utc("2013-03-10T08:00:00Z"), timeZone: zone).description, "2013-03-10")
        XCTAssertEqual(DayDate(instant: utc("2013-03-11T06:59:59Z"), timeZone: zone).description, "2013-03-10")
        XCTAssertEqual(DayDate(instant: utc("2013-03-11T07:00:00Z"), timeZone: zone).description, "2013-03-11")
    }

    func testTheZoneIsKeptInTheStore() throws {
        let file = try StoreFile()
        _ = try file.open(zone: "America/Los_Angeles")
        XCTAssertEqual(try sqlite3(file.path, "SELECT time_zone FROM store_config;"), "America/Los_Angeles")
        XCTAssertEqual(try file.open(zone: nil).timeZone.identifier, "America/Los_Angeles")
        XCTAssertEqual(try file.open(zone: "America/Los_Angeles").timeZone.identifier, "America/Los_Angeles")
        XCTAssertStoreError(.timeZoneMismatch(stored: "America/Los_Angeles", requested: "Europe/Paris")) {
            try file.open(zone: "Europe/Paris")
        }
    }

    func testAnUnknownStoredZoneIsReported() throws {
        let file = try StoreFile()
        _ = try file.open(zone: "America/Los_Angeles")
        try sqlite3(file.path, "UPDATE store_config SET time_zone = 'Mars/Olympus_Mons';")
        XCTAssertStoreError(.invalidTimeZone("Mars/Olympus_Mons")) { try file.open(zone: nil) }
    }

    func testDayDateParsingAndOrder() {
        XCTAssertEqual(DayDate("2013-09-12")?.description, "2013-09-12")
        XCTAssertEqual(DayDate("2012-02-29")?.day, 29)
        XCTAssertNil(DayDate("2013-02-29"))
        XCTAssertNil(DayDate("2013-9-12"))
        XCTAssertNil(DayDate("2013-09-12T00"))
        XCTAssertLessThan(DayDate("2013-09-12")!, DayDate("2013-09-13")!)
        XCTAssertLessThan(DayDate("2012-12-31")!, DayDate("2013-01-01")!)
    }
}
