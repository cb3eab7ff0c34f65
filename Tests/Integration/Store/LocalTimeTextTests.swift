import Foundation
import ImportTestSupport
import Store
import XCTest

/// Instants named to a person are in the store's zone, to the minute (seconds only when asked).
final class LocalTimeTextTests: XCTestCase {
    func testTheDayAndWallClockInTheZone() {
        let newYork = TimeZone(identifier: "America/New_York")!
        let summer = Date(timeIntervalSince1970: 1_437_138_000)  // 2015-07-17 13:00:00 UTC, EDT (−4 h)
        XCTAssertEqual(LocalTimeText.text(summer, zone: newYork), "2015-07-17 09:00")
        XCTAssertEqual(LocalTimeText.named(summer, zone: newYork), "2015-07-17 09:00 (America/New_York)")
        let winter = Date(timeIntervalSince1970: 1_420_070_430.5)  // 2015-01-01 00:00:30.5 UTC, EST (−5 h)
        XCTAssertEqual(LocalTimeText.text(winter, zone: newYork), "2014-12-31 19:00")
        XCTAssertEqual(LocalTimeText.text(winter, zone: newYork, seconds: true), "2014-12-31 19:00:30")
        XCTAssertEqual(LocalTimeText.text(summer, zone: newYork, seconds: true), "2015-07-17 09:00")
    }
}
