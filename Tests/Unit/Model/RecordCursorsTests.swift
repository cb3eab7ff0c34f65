import Foundation
import Model
import Pipeline
import XCTest

/// The words of an import as types: a family, a record stream, the cursors of a source.
final class RecordCursorsTests: XCTestCase {
    func testACursorOnlyRises() {
        var cursors: RecordCursors = ["egv": 41]
        cursors.raise("egv", to: 40)
        cursors.raise("egv", to: 42)
        cursors.raise("meter", to: -3)
        XCTAssertEqual(cursors["egv"], 42)
        XCTAssertEqual(cursors["meter"], -3)
        XCTAssertNil(cursors["history"])
        XCTAssertEqual(cursors.merging(["egv": 7, "history": 9]), ["egv": 42, "meter": -3, "history": 9])
        XCTAssertEqual(cursors.only(["meter", "history"]), ["meter": -3])
        XCTAssertEqual(RecordCursors(dictionaryLiteral: ("egv", 5), ("egv", 3)), ["egv": 5], "a stream named twice keeps its higher index")
    }

    func testCursorsAreReadInStreamOrder() {
        let cursors: RecordCursors = ["steps-day": 19844, "activity": 28_532_039, "steps": 1]
        XCTAssertEqual(cursors.map(\.stream), ["activity", "steps", "steps-day"])
        XCTAssertEqual(cursors.description, "[activity: 28532039, steps: 1, steps-day: 19844]")
    }

    /// In JSON (an import batch's, as the daemon spools it) a family and a stream are strings
    /// and cursors an object, as when they were a `String` and a `[String: Int64]`.
    func testTheyEncodeAsTheStringsTheyName() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let source = DeviceSource(family: .bluetoothActivity, serial: "C0:11:22:33:44:55")
        XCTAssertEqual(String(decoding: try encoder.encode(source), as: UTF8.self), #"{"family":"ble","serial":"C0:11:22:33:44:55"}"#)
        let cursors: RecordCursors = ["egv": 41, "meter": 7]
        let json = try encoder.encode(cursors)
        XCTAssertEqual(String(decoding: json, as: UTF8.self), #"{"egv":41,"meter":7}"#)
        XCTAssertEqual(try JSONDecoder().decode([String: Int64].self, from: json), ["egv": 41, "meter": 7])
        XCTAssertEqual(try JSONDecoder().decode(RecordCursors.self, from: json), cursors)
        XCTAssertEqual(try JSONDecoder().decode(DeviceSource.self, from: try encoder.encode(source)), source)
        XCTAssertEqual(try JSONDecoder().decode(RecordStream.self, from: Data(#""cgm@2024-01-15T06:00:00Z""#.utf8)), "cgm@2024-01-15T06:00:00Z")
    }
}
