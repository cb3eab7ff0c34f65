import Foundation
import Model
import Store
import TestSupport
import XCTest

@testable import glucobridge

/// The export formats, on a store filled by replaying the demo capture.
final class ExportFormatTests: XCTestCase {
    func readings() throws -> [StoredGlucose] {
        let folder = try Fixtures.temporaryDirectory()
        let options = try StoreOptions.parse(["--store", folder.appendingPathComponent("s.sqlite").path, "--tz", "America/New_York"])
        var replay = try ReplayCommand.parse([Fixtures.url("dexcom/ecc1-g4-receiver.pcap").path])
        replay.storeOptions = options
        try replay.run()
        return try options.open().glucose()
    }

    func testCSV() throws {
        let lines = GlucoseExport.csv(try readings()).split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.first, "time,day,mgdl,mmol,tag,flag,kind,trend,source,record_key,device_display_time,note")
        XCTAssertEqual(lines.count, 1 + 23 + 1)
        XCTAssertEqual(lines[1], "2015-07-18T00:18:17Z,2015-07-17,79,4.4,in-range,,sensor,Flat,dexcom:SM44792675,egv:11856,2016-02-24T16:46:53,")
        XCTAssertEqual(lines[23], "2015-07-18T02:08:16Z,2015-07-17,224,12.4,hyper-l1,,sensor,Flat,dexcom:SM44792675,egv:11878,2016-02-24T18:36:53,")
    }

    func testJSON() throws {
        let data = try GlucoseExport.json(try readings())
        let objects = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [[String: String]])
        XCTAssertEqual(objects.count, 23)
        XCTAssertEqual(objects.last?["time"], "2015-07-18T02:08:16Z")
        XCTAssertEqual(objects.last?["mgdl"], "224")
        XCTAssertEqual(objects.last?["tag"], "hyper-l1")
        XCTAssertNil(objects.last?["flag"], "empty fields are left out")
    }

    func testDayAndInstantBounds() throws {
        let zone = TimeZone(identifier: "America/New_York")!
        XCTAssertEqual(try ExportCommand.instant("2015-07-17", zone: zone, endOfDay: false), ISO8601DateFormatter().date(from: "2015-07-17T04:00:00Z"))
        XCTAssertEqual(try ExportCommand.instant("2015-07-17", zone: zone, endOfDay: true), ISO8601DateFormatter().date(from: "2015-07-18T04:00:00Z"))
        XCTAssertEqual(try ExportCommand.instant("2015-07-18T01:00:00Z", zone: zone, endOfDay: false), ISO8601DateFormatter().date(from: "2015-07-18T01:00:00Z"))
        XCTAssertThrowsError(try ExportCommand.instant("yesterday", zone: zone, endOfDay: false)) { error in
            XCTAssertTrue("\(error)".contains("cannot read \"yesterday\""))
        }
    }
}
