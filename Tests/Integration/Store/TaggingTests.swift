import Foundation
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

final class TaggingTests: XCTestCase {
    private let values: [Double] = [53, 54, 69, 70, 180, 181, 250, 251]

    private func storedTags(_ store: SharedStore) throws -> [String] {
        try store.glucose().map(\.tag.rawValue)
    }

    func testConsensusEdgesThroughTheStore() throws {
        let file = try StoreFile()
        let store = try file.open()
        XCTAssertEqual(try store.thresholds(), .consensus)
        let start = utc("2013-09-13T12:00:00Z")
        _ = try store.save(batch(values.enumerated().map { i, v in reading(i, at: start.addingTimeInterval(Double(i) * 300), v) }))
        XCTAssertEqual(
            try storedTags(store),
            [
                "hypo-l2", "hypo-l1", "hypo-l1", "in-range", "in-range", "hyper-l1", "hyper-l1", "hyper-l2",
            ])
        XCTAssertEqual(try store.glucose().map(\.mgdl), values)
        // Other programs read the same tags.
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT group_concat(tag, ' ') FROM (SELECT tag FROM glucose ORDER BY time);"),
            "hypo-l2 hypo-l1 hypo-l1 in-range in-range hyper-l1 hyper-l1 hyper-l2")
    }

    func testSetThresholdsRetagsEveryRowAndIsKept() throws {
        let file = try StoreFile()
        let store = try file.open()
        let start = utc("2013-09-13T12:00:00Z")
        _ = try store.save(batch(values.enumerated().map { i, v in reading(i, at: start.addingTimeInterval(Double(i) * 300), v) }))

        let tight = try GlucoseThresholds(veryLow: 60, low: 80, high: 140, veryHigh: 200)
        try store.setThresholds(tight)
        XCTAssertEqual(try store.thresholds(), tight)
        // 53 54 69 | 70 | 180 181 | 250 251
        XCTAssertEqual(
            try storedTags(store),
            [
                "hypo-l2", "hypo-l2", "hypo-l1", "hypo-l1", "hyper-l1", "hyper-l1", "hyper-l2", "hyper-l2",
            ])
        // New readings are tagged with the thresholds in force, and a reopened store keeps them.
        let reopened = try file.open()
        XCTAssertEqual(try reopened.thresholds(), tight)
        _ = try reopened.save(batch([reading(100, at: start.addingTimeInterval(86_400), 145)]))
        XCTAssertEqual(try reopened.glucose().last?.tag, .hyperLevel1)

        try reopened.setThresholds(.consensus)
        XCTAssertEqual(
            try storedTags(reopened),
            [
                "hypo-l2", "hypo-l1", "hypo-l1", "in-range", "in-range", "hyper-l1", "hyper-l1", "hyper-l2", "in-range",
            ])
    }

    func testMillimolesAreTaggedAsTheMeterShowedThem() throws {
        let file = try StoreFile()
        let store = try file.open()
        let start = utc("2013-09-13T12:00:00Z")
        // 3.9 mmol/L is the consensus low edge in mmol/L; 3.8 is below it.
        let mmol: [Double] = [3.8, 3.9, 10.0, 10.1]
        let stored = mmol.enumerated().map { i, v in
            reading(i, at: start.addingTimeInterval(Double(i) * 60), v * GlucoseUnit.mgdlPerMmol, unit: .millimolesPerLiter, kind: .fingerstick)
        }
        _ = try store.save(batch(stored))
        let rows = try store.glucose()
        XCTAssertEqual(rows.map(\.tag), [.hypoLevel1, .inRange, .inRange, .hyperLevel1])
        XCTAssertEqual(rows.map(\.unit), Array(repeating: .millimolesPerLiter, count: 4))
        XCTAssertEqual(rows.map(\.kind), Array(repeating: .fingerstick, count: 4))
        try store.setThresholds(.consensus)
        XCTAssertEqual(try store.glucose().map(\.tag), [.hypoLevel1, .inRange, .inRange, .hyperLevel1])
    }
}
