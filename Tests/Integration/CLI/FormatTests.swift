import Foundation
import ImportTestSupport
import Store
import TestSupport
import XCTest

@testable import glucobridge

/// Numbers, times and durations as the commands print them.
final class FormatTests: XCTestCase {
    let zone = TimeZone(identifier: "America/Los_Angeles")!

    func testFormats() {
        XCTAssertEqual(Format.number(45), "45")
        // A half is rounded away from zero on the decimal digits (60.55 is 60.549999… in binary).
        XCTAssertEqual(Format.number(60.55), "60.6")
        XCTAssertEqual(Format.number(60.549), "60.5")
        XCTAssertEqual(Format.number(4.25, decimals: 2), "4.25")
        XCTAssertEqual(Format.number(61.2544, decimals: 0), "61")
        XCTAssertEqual(Format.duration(30), "30 s")
        XCTAssertEqual(Format.duration(2700), "45 min")
        XCTAssertEqual(Format.duration(3600), "1 h")
        XCTAssertEqual(Format.duration(9000), "2 h 30 min")
        XCTAssertEqual(Format.utc(utc("2013-09-13T06:30:00Z")), "2013-09-13T06:30:00Z")
        XCTAssertEqual(Format.localTime(utc("2013-11-03T09:30:59Z"), zone: zone, withOffset: true), "01:30 -08:00")
    }
}
