import AppTestSupport
import Foundation
import ImportTestSupport
import Store
import TestSupport
import XCTest

@testable import glucobridge

/// `stats` on the replayed Dexcom capture (23 readings on 2015-07-17 in Los Angeles).
final class StatsCommandTests: XCTestCase {
    func testJSONHasExactlyTheDocumentedKeys() throws {
        let cli = try CLIStore()
        try cli.replayDexcomCapture()
        let object = try XCTUnwrap(try jsonObject(try cli.run(["stats", "--json", "--from", "2015-07-17", "--to", "2015-07-17"])) as? [String: Any])
        XCTAssertEqual(
            Set(object.keys),
            [
                "from", "to", "zone", "readings", "coverage_percent", "mean_mgdl", "sd_mgdl", "cv_percent", "gmi_percent",
                "time_in_ranges_percent", "events", "fingersticks_excluded",
            ])
        XCTAssertEqual(object["from"] as? String, "2015-07-17T07:00:00Z")
        XCTAssertEqual(object["to"] as? String, "2015-07-18T07:00:00Z")
        XCTAssertEqual(object["zone"] as? String, "America/Los_Angeles")
        XCTAssertEqual(object["readings"] as? Int, 23)
        XCTAssertTrue(object["gmi_percent"] is NSNull, "8 % coverage: no GMI")
        XCTAssertEqual(object["coverage_percent"] as? Double, 8.0)  // 23 × 5 min of 1440 min = 7.99 %
        let ranges = try XCTUnwrap(object["time_in_ranges_percent"] as? [String: Double])
        XCTAssertEqual(Set(ranges.keys), ["very_low", "low", "in_range", "high", "very_high"])
        XCTAssertEqual(ranges["high"], 47.8)  // 11 of 23
        XCTAssertEqual(ranges["in_range"], 52.2)
        let events = try XCTUnwrap(object["events"] as? [String: Int])
        XCTAssertEqual(Set(events.keys), ["hypo_l1", "hypo_l2", "hyper_l1", "hyper_l2"])
        XCTAssertEqual(events["hyper_l1"], 1)
    }

    /// By default: the 14 Days ending with the newest Day holding CGM readings.
    func testDefaultPeriodAndText() throws {
        let cli = try CLIStore()
        try cli.replayDexcomCapture()
        let object = try XCTUnwrap(try jsonObject(try cli.run(["stats", "--json"])) as? [String: Any])
        XCTAssertEqual(object["from"] as? String, "2015-07-04T07:00:00Z")
        XCTAssertEqual(object["to"] as? String, "2015-07-18T07:00:00Z")
        let text = try cli.run(["stats", "--last", "1"])
        XCTAssertTrue(text.contains("readings         23 (sensor every 5 min)"), text)
        XCTAssertTrue(text.contains("coverage is below 70 %"), text)
        XCTAssertTrue(text.contains("fingerstick readings left out: 0"), text)
        XCTAssertThrowsError(try cli.run(["stats", "--to", "2015-07-17", "--last", "3"])) { error in
            XCTAssertEqual("\(error)", "give --to or --last, not both")
        }
    }
}
