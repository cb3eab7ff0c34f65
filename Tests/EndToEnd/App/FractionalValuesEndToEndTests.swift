import AppTestSupport
import Foundation
import GRDB
import ImportTestSupport
import Model
import Simulators
import Store
import TestSupport
import XCTest

/// A Bluetooth CGM that reports decimals (SFLOAT), at and around the consensus edges: each
/// value is tagged on the value as the device sent it, and leaves the store as it was sent,
/// through every way out (the store, CSV, JSON, Nightscout, `day`, `days`, `stats`, the report
/// and the central PostgreSQL).
final class FractionalValuesEndToEndTests: XCTestCase {
    /// The device's values in tenths of mg/dL (204.5: SFLOAT's largest one-decimal value, 2045e−1,
    /// below the reserved mantissas), with the tag the consensus gives each (< 54, < 70, > 180,
    /// > 250, strictly).
    static let readings: [(tenths: Int, text: String, tag: String)] = [
        (539, "53.9", "hypo-l2"), (540, "54", "hypo-l1"), (696, "69.6", "hypo-l1"), (699, "69.9", "hypo-l1"),
        (700, "70", "in-range"), (1801, "180.1", "hyper-l1"), (1804, "180.4", "hyper-l1"), (2045, "204.5", "hyper-l1"),
    ]

    let glucobridge = BuiltProducts.executable("glucobridge")

    /// Records the simulated sensor's session and replays it into a new store in UTC.
    private func replayedStore() throws -> (folder: URL, store: String) {
        let folder = try Fixtures.temporaryDirectory()
        let capture = folder.appendingPathComponent("cgm-decimals.btsnoop")
        try ContinuousGlucoseSensorDemo.record(tenths: Self.readings.map(\.tenths), to: capture)
        let store = folder.appendingPathComponent("store.sqlite").path
        let replay = try runProcess(glucobridge, ["replay", capture.path, "--store", store, "--tz", "UTC"])
        XCTAssertEqual(replay.status, 0, replay.stderr)
        XCTAssertTrue(replay.stdout.contains("8 records read: 8 readings new, 0 already stored"), replay.stdout)
        return (folder, store)
    }

    private func run(_ arguments: [String], store: String) throws -> String {
        let result = try runProcess(glucobridge, arguments + ["--store", store])
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
        return result.stdout
    }

    func testTheStoreAndEveryExportKeepTheDevicesValues() throws {
        let (_, store) = try replayedStore()

        // The store: the value as sent, its tag by strict comparisons.
        let rows = try DatabaseQueue(path: store).read { db in
            try Row.fetchAll(db, sql: "SELECT mgdl, unit, tag FROM glucose ORDER BY time")
        }
        XCTAssertEqual(rows.map { $0["mgdl"] as Double }, Self.readings.map { Double($0.tenths) / 10 })
        XCTAssertEqual(rows.map { $0["unit"] as String }, Array(repeating: "mg/dL", count: 8))
        XCTAssertEqual(rows.map { $0["tag"] as String }, Self.readings.map(\.tag))

        // CSV: mgdl exactly, mmol to one decimal from it, the stored tag.
        let csv = try run(["export", "--format", "csv"], store: store).split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        XCTAssertEqual(csv[0][2...4], ["mgdl", "mmol", "tag"])
        XCTAssertEqual(csv.dropFirst().map { $0[2] }, Self.readings.map(\.text))
        XCTAssertEqual(csv.dropFirst().map { $0[3] }, ["3.0", "3.0", "3.9", "3.9", "3.9", "10.0", "10.0", "11.4"])
        XCTAssertEqual(csv.dropFirst().map { $0[4] }, Self.readings.map(\.tag))

        // JSON: the same numbers, as JSON numbers (whole stays whole).
        let jsonText = try run(["export", "--format", "json"], store: store)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(jsonText.utf8)) as? [[String: Any]])
        XCTAssertEqual(json.map { ($0["mgdl"] as? NSNumber)?.doubleValue }, Self.readings.map { Double($0.tenths) / 10 })
        XCTAssertEqual(json.map { $0["tag"] as? String }, Self.readings.map(\.tag))
        for reading in Self.readings {
            XCTAssertTrue(jsonText.contains("\"mgdl\" : \(reading.text),"), "\(reading.text) in \(jsonText)")
        }

        // Nightscout: sgv in whole mg/dL, its own convention (half away from zero, as JavaScript's
        // Math.round does for these).
        let entries = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try run(["export", "--format", "nightscout"], store: store).utf8)) as? [[String: Any]])
        XCTAssertEqual(entries.map { $0["sgv"] as? Int }, [54, 54, 70, 70, 70, 180, 180, 205])
        XCTAssertEqual(entries.map { $0["type"] as? String }, Array(repeating: "sgv", count: 8))

        // Days: low and high exactly, the average to one decimal, the share in range of the tags.
        let days = try run(["export", "--kind", "days", "--format", "csv"], store: store).split(separator: "\n").map {
            $0.split(separator: ",").map(String.init)
        }
        XCTAssertEqual(Array(days[0][0...7]), ["day", "readings", "low_mgdl", "average_mgdl", "high_mgdl", "time_in_range_percent", "hypo", "hyper"])
        XCTAssertEqual(Array(days[1][0...7]), ["2024-01-15", "8", "53.9", "110.3", "204.5", "12.5", "true", "true"])
    }

    func testTheViewsStatsAndReportUseTheTagsAndNeverRoundAcrossAnEdge() throws {
        let (folder, store) = try replayedStore()

        // `day`: each reading as sent, with its tag.
        let day = try run(["day", "2024-01-15"], store: store)
        for (reading, words) in zip(Self.readings, ["hypo (level 2)", "hypo", "hypo", "hypo", "in range", "hyper", "hyper", "hyper"]) {
            XCTAssertTrue(day.contains(" \(reading.text) mg/dL, \(words), sensor"), "\(reading.text) \(words) in:\n\(day)")
        }
        let dayJSON = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try run(["day", "2024-01-15", "--json"], store: store).utf8)) as? [String: Any])
        let logs = try XCTUnwrap(dayJSON["logs"] as? [[String: Any]] ?? (dayJSON["glucose"] as? [[String: Any]]), "\(dayJSON.keys)")
        let glucoseLogs = logs.filter { $0["tag"] != nil }
        XCTAssertEqual(glucoseLogs.map { ($0["mgdl"] as? NSNumber)?.doubleValue }, Self.readings.map { Double($0.tenths) / 10 })
        XCTAssertEqual(glucoseLogs.map { $0["tag"] as? String }, Self.readings.map(\.tag))

        // `days`: the low keeps its decimal (53.9 would round to 54, across the 54 edge), the high
        // is rounded (204.5 to 205, a half away from zero as a person rounds, crossing none); 1
        // reading of 8 in range.
        let days = try run(["days"], store: store).split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(Array(days[1][0...8]), ["2024-01-15", "8", "53.9", "110", "205", "13%", "yes", "yes", "-"], "\(days)")
        // In mmol/L: 53.9 mg/dL is 2.99, which one decimal would show as 3.0, the edge.
        XCTAssertEqual(try runProcess(glucobridge, ["config", "--unit", "mmol/L", "--store", store]).status, 0)
        let daysMmol = try run(["days"], store: store).split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(Array(daysMmol[1][0...4]), ["2024-01-15", "8", "2.99", "6.1", "11.4"], "\(daysMmol)")
        XCTAssertEqual(try runProcess(glucobridge, ["config", "--unit", "mg/dL", "--store", store]).status, 0)

        // `stats`: time in ranges from the tags: 1 very low, 3 low, 1 in range, 3 high of 8.
        let period = ["--from", "2024-01-15", "--to", "2024-01-16"]
        let stats = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try run(["stats", "--json"] + period, store: store).utf8)) as? [String: Any])
        let ranges = try XCTUnwrap(stats["time_in_ranges_percent"] as? [String: Any] ?? stats["time_in_ranges"] as? [String: Any], "\(stats)")
        XCTAssertEqual(ranges["very_low"] as? Double, 12.5, "\(ranges)")
        XCTAssertEqual(ranges["low"] as? Double, 37.5, "\(ranges)")
        XCTAssertEqual(ranges["in_range"] as? Double, 12.5, "\(ranges)")
        XCTAssertEqual(ranges["high"] as? Double, 37.5, "\(ranges)")
        XCTAssertEqual(ranges["very_high"] as? Double, 0, "\(ranges)")
        XCTAssertEqual(stats["mean_mgdl"] as? Double, 110.3, "\(stats)")

        // The report: the same shares, from the same tags.
        let page = folder.appendingPathComponent("report.html")
        _ = try run(["report", "--output", page.path] + period, store: store)
        let html = try String(contentsOf: page, encoding: .utf8)
        for (label, share) in [("Very high", "0.0"), ("High", "37.5"), ("In range", "12.5"), ("Low", "37.5"), ("Very low", "12.5")] {
            XCTAssertTrue(html.contains("<tspan font-weight=\"bold\">\(share) %</tspan> \(label) "), "\(label) \(share) % in the report")
        }
    }

    /// The central PostgreSQL holds each value as sent, and the same tag.
    func testSyncSendsTheValuesAndTags() async throws {
        let (_, path) = try replayedStore()
        let database = try await TestDatabase()
        let store = try SharedStore(path: path)
        _ = try await database.sync(store, patient: "p-decimals")
        let rows = try await database.rows(
            "SELECT mgdl::text, tag FROM glucose_reading WHERE patient_id = 'p-decimals' ORDER BY time")
        XCTAssertEqual(rows, Self.readings.map { [$0.text, $0.tag] })
        await database.drop()
    }
}
