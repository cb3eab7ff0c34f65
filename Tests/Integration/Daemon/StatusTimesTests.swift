import Foundation
import ImportTestSupport
import Importer
import Store
import TestSupport
import XCTest

@testable import Daemon

/// `status` shows its instants in the store's zone, like every other output.
final class StatusTimesTests: XCTestCase {
    func testStatusTimesAreLocal() throws {
        let folder = try Fixtures.temporaryDirectory()
        let path = folder.appendingPathComponent("store.sqlite").path
        _ = try SharedStore(path: path, timeZone: TimeZone(identifier: "America/New_York")!)
        let started = Date(timeIntervalSince1970: 1_437_138_000)  // 2015-07-17 13:00:00 UTC
        var state = DaemonState(pid: 0, startedAt: started, spool: nil, usb: "watching", bluetooth: "off")
        state.running = false
        state.updatedAt = started.addingTimeInterval(3605)
        state.failures = [DaemonState.Failure(time: started.addingTimeInterval(60), what: "usb", error: "unplugged")]
        let lines = StatusReport.daemonLines(state, zone: TimeZone(identifier: "America/New_York")!)
        XCTAssertEqual(lines.first, "daemon: stopped 2015-07-17 10:00:05 (it ran from 2015-07-17 09:00)")
        XCTAssertTrue(lines.contains("    2015-07-17 09:01 usb: unplugged"), lines.joined(separator: "\n"))
        XCTAssertEqual(
            try StatusReport.text(storePath: path).split(separator: "\n").first.map(String.init),
            "store: \(path) (times in America/New_York)")
    }

    /// The last import of every source goes through the import report's formatter: the counts
    /// are the report's own line, the time is in the store's zone.
    func testLastImportsThroughTheReportFormatter() throws {
        let folder = try Fixtures.temporaryDirectory()
        let path = folder.appendingPathComponent("store.sqlite").path
        let zone = TimeZone(identifier: "America/New_York")!
        let store = try SharedStore(path: path, timeZone: zone)
        let capture = Fixtures.url("dexcom/ecc1-g4-receiver.pcap")
        let report = ImportReport(try Importer(store: store).run(.capture(capture)), store: store).text.split(separator: "\n").map(String.init)
        XCTAssertEqual(report[2], "23 records read: 23 new, 0 already stored")

        let run = try XCTUnwrap(try store.latestImportRuns().first)
        let lines = try StatusReport.text(storePath: path).split(separator: "\n").map(String.init)
        let line = try XCTUnwrap(lines.first { $0.hasPrefix("  dexcom SM44792675 (G4Receiver): ") }, lines.joined(separator: "\n"))
        XCTAssertEqual(line, "  " + ImportReport.lastImport(run, zone: zone))
        XCTAssertEqual(
            line,
            "  dexcom SM44792675 (G4Receiver): \(LocalTimeText.text(run.finishedAt, zone: zone, seconds: true)) replay-conversation from "
                + "\(capture.path): " + report[2])
    }
}
