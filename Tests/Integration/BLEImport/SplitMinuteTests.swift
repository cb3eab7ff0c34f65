import Foundation
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import XCTest

/// A minute split between two Bluetooth sessions (issue 36, item 2): the simulated heart-rate band
/// recorded once for 150 s from 05:55:00Z, and as two sessions cut inside minute 05:56, A
/// (seconds 1–90, to 05:56:30) and B (seconds 91–150). Whatever the order of the imports, the
/// store ends up with the minutes the whole session gives.
final class SplitMinuteTests: XCTestCase {
    static let split = HeartRateBandDemo.connected.addingTimeInterval(60)
    var whole: URL!
    var partA: URL!
    var partB: URL!

    override func setUpWithError() throws {
        let folder = try Fixtures.temporaryDirectory()
        whole = folder.appendingPathComponent("whole.btsnoop")
        partA = folder.appendingPathComponent("a.btsnoop")
        partB = folder.appendingPathComponent("b.btsnoop")
        try HeartRateBandDemo.record(to: whole, notifying: 1...150)
        try HeartRateBandDemo.record(to: partA, notifying: 1...90)
        try HeartRateBandDemo.record(to: partB, notifying: 91...150)
    }

    /// The activity minutes of a fresh store after importing `captures` in order, with each import's summary.
    func minutes(importing captures: [URL]) throws -> (rows: [String], summaries: [ActivityImportSummary], store: SharedStore) {
        let store = try freshStore(zone: "UTC")
        let importer = Importer(store: store)
        var summaries: [ActivityImportSummary] = []
        for capture in captures {
            let outcome = try importer.replayOneBLE(captureAt: capture)
            XCTAssertEqual(outcome.problems, [])
            summaries.append(try XCTUnwrap(outcome.activity?.summary))
        }
        return (try storeContent(store, [.activityMinutes]), summaries, store)
    }

    /// What the captures hold: A ends and B starts inside minute 05:56, and the band's energy
    /// total carries on from A to B.
    func testTheCapturesSplitMinute0556() throws {
        let a = try minutes(importing: [partA])
        let b = try minutes(importing: [partB])
        let whole = try minutes(importing: [self.whole])
        XCTAssertEqual(whole.rows.count, 3)
        XCTAssertEqual(a.rows.count, 2)
        XCTAssertEqual(b.rows.count, 2)
        let split = { (store: SharedStore) in try store.activityMinutes(from: Self.split, to: Self.split.addingTimeInterval(60)) }
        let wholeMinute = try XCTUnwrap(split(whole.store).first?.minute)
        let aMinute = try XCTUnwrap(split(a.store).first?.minute)
        let bMinute = try XCTUnwrap(split(b.store).first?.minute)
        // Seconds 60–119: 68 + second % 5 bpm, twelve of each of 68…72.
        XCTAssertEqual(wholeMinute.sampleCount, 60)
        XCTAssertEqual(wholeMinute.heartRate, 70)
        XCTAssertEqual(aMinute.sampleCount, 31)
        XCTAssertEqual(bMinute.sampleCount, 29)
        // The energy total every 10 s (4 kJ at 50 s, 8 at 90, 9 at 100, 10 at 110): the whole
        // session counts 50→110, A 50→90, B 100→110 (its total at 100 s only sets the base).
        XCTAssertEqual(wholeMinute.energy, 6)
        XCTAssertEqual(aMinute.energy, 4)
        XCTAssertEqual(bMinute.energy, 1)
    }

    /// A then B, B then A, A twice then B, and B after A and B again: the minutes of the whole
    /// session, and the split minute counted once as merged.
    func testEveryOrderGivesTheWholeSessionsMinutes() throws {
        let expected = try minutes(importing: [whole]).rows
        let aThenB = try minutes(importing: [partA, partB])
        XCTAssertEqual(aThenB.rows, expected)
        XCTAssertEqual(aThenB.summaries.map(\.minutesAdded), [2, 1])
        XCTAssertEqual(aThenB.summaries.map(\.minutesMerged), [0, 1])
        XCTAssertEqual(
            aThenB.summaries[1].description,
            "0 new exercise sessions, 0 already stored; 1 new activity minutes, 1 merged with a stored part, 0 already stored")

        let bThenA = try minutes(importing: [partB, partA])
        XCTAssertEqual(bThenA.rows, expected)
        XCTAssertEqual(bThenA.summaries.map(\.minutesMerged), [0, 1])

        let aTwice = try minutes(importing: [partA, partA, partB, partB, partA])
        XCTAssertEqual(aTwice.rows, expected)
        XCTAssertEqual(aTwice.summaries.map(\.minutesAdded), [2, 0, 1, 0, 0])
        XCTAssertEqual(aTwice.summaries.map(\.minutesMerged), [0, 0, 1, 0, 0])
        XCTAssertEqual(aTwice.summaries.map(\.minutesAlreadyStored), [0, 2, 0, 2, 2])
        // The whole session after its parts: it overlaps them, and changes nothing.
        let wholeAfter = try minutes(importing: [partA, partB, whole])
        XCTAssertEqual(wholeAfter.rows, expected)
        XCTAssertEqual(wholeAfter.summaries.last?.minutesAlreadyStored, 3)
    }

    /// The report of the second session's import says it completed a stored minute.
    func testTheReportCountsTheMergedMinute() throws {
        let store = try freshStore(zone: "UTC")
        let importer = Importer(store: store)
        _ = try importer.replayOneBLE(captureAt: partA)
        let report = ImportReport(try importer.run(.capture(partB)), store: store).text.split(separator: "\n").map(String.init)
        XCTAssertTrue(
            report.contains(
                "activity (ble:SIM-HR-0001 via ble-hrs): 60 samples; 2 minutes: 1 new, 1 merged with a stored part of it, 0 already stored; "
                    + "exercise sessions: 0 new, 0 already stored"), "\(report)")
    }

    /// The merged minute moves to the import run that completed it, where a sync reads it again.
    func testTheMergedMinuteMovesToTheRunThatCompletedIt() throws {
        let imported = try minutes(importing: [partA, partB])
        let runs = imported.summaries.map(\.runID)
        let rows = try sqlite3(
            imported.store.path,
            "SELECT minute || ' ' || import_run_id FROM activity_minute ORDER BY minute;")
        XCTAssertEqual(
            rows,
            ["2024-05-02 05:55:00.000 \(runs[0])", "2024-05-02 05:56:00.000 \(runs[1])", "2024-05-02 05:57:00.000 \(runs[1])"]
                .joined(separator: "\n"))
        let parts = try sqlite3(
            imported.store.path,
            "SELECT first_sample || ' ' || last_sample || ' ' || sample_count FROM activity_minute_part WHERE minute = '2024-05-02 05:56:00.000' ORDER BY first_sample;"
        )
        XCTAssertEqual(
            parts,
            ["2024-05-02 05:56:00.000 2024-05-02 05:56:30.000 31", "2024-05-02 05:56:31.000 2024-05-02 05:56:59.000 29"]
                .joined(separator: "\n"))
    }
}
