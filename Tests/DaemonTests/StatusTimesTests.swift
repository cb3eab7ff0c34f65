import Foundation
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
}
