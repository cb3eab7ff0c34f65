import Foundation
import ImportTestSupport
import Store
import TestSupport
import XCTest

/// The times and Days a person types, read in the store's zone.
final class TimeInputTests: XCTestCase {
    let zone = TimeZone(identifier: "America/Los_Angeles")!
    let now = utc("2013-09-14T05:00:00Z")  // 22:00 on 2013-09-13 in Los Angeles

    func instant(_ text: String) throws -> Date {
        try TimeInput.instant(text, zone: zone, now: now)
    }

    func testInstantsWithAZone() throws {
        XCTAssertEqual(try instant("now"), now)
        XCTAssertEqual(try instant("2013-09-13T06:30:00Z"), utc("2013-09-13T06:30:00Z"))
        XCTAssertEqual(try instant("2013-09-13T08:30:00+02:00"), utc("2013-09-13T06:30:00Z"))
        XCTAssertEqual(try instant("2013-09-13T08:30+02:00"), utc("2013-09-13T06:30:00Z"))
        XCTAssertEqual(try instant("2013-09-13T06:30Z"), utc("2013-09-13T06:30:00Z"))
        XCTAssertEqual(try instant("2013-09-13T06:30:00.250Z").timeIntervalSince1970, utc("2013-09-13T06:30:00Z").timeIntervalSince1970 + 0.25)
    }

    func testLocalTimesInTheStoresZone() throws {
        XCTAssertEqual(try instant("2013-09-13 08:30"), utc("2013-09-13T15:30:00Z"))
        XCTAssertEqual(try instant("2013-09-13T08:30:15"), utc("2013-09-13T15:30:15Z"))
        XCTAssertEqual(try instant("07:15"), utc("2013-09-13T14:15:00Z"), "a time alone is today in the store's zone")
        XCTAssertEqual(try instant("2013-12-25 00:00"), utc("2013-12-25T08:00:00Z"), "winter time")
        // The clocks go back at 02:00 on 2013-11-03: 01:30 happens twice, the earlier is taken.
        XCTAssertEqual(try instant("2013-11-03 01:30"), utc("2013-11-03T08:30:00Z"))
        XCTAssertEqual(try instant("2013-11-03 02:00"), utc("2013-11-03T10:00:00Z"))
        // They go forward at 02:00 on 2013-03-10: 02:00 to 02:59 do not exist.
        XCTAssertThrowsError(try instant("2013-03-10 02:00")) { error in
            XCTAssertEqual("\(error)", "2013-03-10 02:00 does not exist in America/Los_Angeles: the clocks skip it")
        }
        XCTAssertEqual(try instant("2013-03-10 01:59"), utc("2013-03-10T09:59:00Z"))
        XCTAssertEqual(try instant("2013-03-10 03:00"), utc("2013-03-10T10:00:00Z"))
    }

    func testTextThatIsNotATime() {
        for text in ["", "yesterday", "25:00", "2013-09-13", "2013-02-30 10:00", "10:5", "2013-09-13 10:00 PM", "2013-09-13T10:00+2"] {
            XCTAssertThrowsError(try instant(text), text) { error in
                XCTAssertTrue("\(error)".hasPrefix("cannot read \"\(text)\" as a time"), "\(error)")
            }
        }
    }

    func testDays() throws {
        XCTAssertEqual(try TimeInput.day("2013-09-01", zone: zone, now: now).description, "2013-09-01")
        XCTAssertEqual(try TimeInput.day("today", zone: zone, now: now).description, "2013-09-13")
        XCTAssertEqual(try TimeInput.day("yesterday", zone: zone, now: now).description, "2013-09-12")
        XCTAssertThrowsError(try TimeInput.day("2013-02-29", zone: zone, now: now)) { error in
            XCTAssertEqual(error as? TimeInputError, .notADay("2013-02-29"))
        }
    }

    /// A Day is its first instant, or as an end the next Day's; an instant is itself.
    func testBoundsOfAPeriod() throws {
        let newYork = TimeZone(identifier: "America/New_York")!
        XCTAssertEqual(try TimeInput.bound("2015-07-17", .start, zone: newYork, now: now), utc("2015-07-17T04:00:00Z"))
        XCTAssertEqual(try TimeInput.bound("2015-07-17", .end, zone: newYork, now: now), utc("2015-07-18T04:00:00Z"))
        XCTAssertEqual(try TimeInput.bound("2015-07-18T01:00:00Z", .end, zone: newYork, now: now), utc("2015-07-18T01:00:00Z"))
        XCTAssertEqual(try TimeInput.bound("yesterday", .start, zone: zone, now: now), utc("2013-09-12T07:00:00Z"))
        XCTAssertEqual(try TimeInput.bound("today", .end, zone: zone, now: now), utc("2013-09-14T07:00:00Z"))
        // The Day the clocks go forward starts at midnight and lasts 23 hours.
        XCTAssertEqual(try TimeInput.bound("2013-03-10", .end, zone: zone, now: now), utc("2013-03-11T07:00:00Z"))
        XCTAssertThrowsError(try TimeInput.bound("2015-07-32", .start, zone: newYork, now: now)) { error in
            XCTAssertEqual("\(error)", "cannot read \"2015-07-32\" as a time: use \(TimeInput.help)")
        }
    }
}
