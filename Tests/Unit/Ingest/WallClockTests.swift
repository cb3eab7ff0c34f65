import Foundation
import Ingest
import Model
import XCTest

final class WallClockTests: XCTestCase {
    let newYork = TimeZone(identifier: "America/New_York")!

    func wall(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int) -> Int64 {
        CivilDate.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60)
    }

    /// 02:30 on 2026-03-08 does not exist in New York: it is read in standard time (07:30Z, shown
    /// 03:30 EDT). 01:30 on 2026-11-01 happens twice: the earlier, daylight-time one (05:30Z).
    func testSkippedAndRepeatedHours() {
        XCTAssertEqual(WallClock.instant(wall: wall(2026, 3, 8, 2, 30), in: newYork), Date(timeIntervalSince1970: 1_772_955_000))
        XCTAssertEqual(WallClock.instant(wall: wall(2026, 3, 8, 1, 59), in: newYork), Date(timeIntervalSince1970: 1_772_953_140))
        XCTAssertEqual(WallClock.instant(wall: wall(2026, 3, 8, 3, 0), in: newYork), Date(timeIntervalSince1970: 1_772_953_200))
        XCTAssertEqual(WallClock.instant(wall: wall(2026, 11, 1, 1, 30), in: newYork), Date(timeIntervalSince1970: 1_793_511_000))
        XCTAssertEqual(WallClock.instant(wall: wall(2026, 11, 1, 2, 0), in: newYork), Date(timeIntervalSince1970: 1_793_516_400))
    }

    /// An error within the clock's resolution is none; beyond it, it is counted at the resolution.
    func testClockErrorAtTheClocksResolution() {
        let host = Date(timeIntervalSince1970: 1_773_151_240)  // 2026-03-10 14:00:40Z, 10:00:40 EDT
        XCTAssertEqual(WallClock.error(deviceWall: wall(2026, 3, 10, 10, 0), host: host, zone: newYork, resolution: 60), 0)
        XCTAssertEqual(WallClock.error(deviceWall: wall(2026, 3, 10, 10, 1), host: host, zone: newYork, resolution: 60), 0)
        XCTAssertEqual(WallClock.error(deviceWall: wall(2026, 3, 10, 10, 7), host: host, zone: newYork, resolution: 60), 420)
        XCTAssertEqual(WallClock.error(deviceWall: wall(2026, 3, 10, 6, 50), host: host, zone: newYork, resolution: 60), -11_400)
        XCTAssertEqual(WallClock.error(deviceWall: wall(2026, 3, 10, 10, 0), host: host, zone: newYork, resolution: 1), -40)
    }

    func testSignedDurations() {
        XCTAssertEqual(WallClock.signed(3600), "+1 h 0 min")
        XCTAssertEqual(WallClock.signed(-11_400), "−3 h 10 min")
        XCTAssertEqual(WallClock.signed(420), "+7 min")
        XCTAssertEqual(WallClock.signed(-40), "−40 s")
    }
}
