import Foundation
import ImportTestSupport
import Simulators
import TestSupport
import XCTest

/// The whole command line path: a Libre reader's session recorded as a usbmon pcap across the
/// 2026 US change to daylight time, replayed by the `glucobridge` program with `--tz`, then
/// exported as CSV.
final class WallClockReplayTests: XCTestCase {
    func testReplayAndExportAcrossTheChange() throws {
        let folder = try Fixtures.temporaryDirectory()
        let capture = folder.appendingPathComponent("libre-dst.pcap")
        var tick = 0.0
        let host = ISO8601DateFormatter().date(from: "2026-03-10T14:00:40Z")!
        let reader = FreeStyleReaderSimulator(
            productID: 0x3650, outEndpoint: false, serial: "JCMV000-CLI01", softwareVersion: "2.3.2", date: "3,10,26", time: "10,0",
            records: [
                "$history?": ["2,12,3,8,26,9,15,0,1,0,0,0,0,180,30,0", "1,12,3,8,26,7,45,0,1,0,0,0,0,70,15,0"],
                "$arresult?": ["3,5,3,8,26,9,0,0,1,3,8,26,8,0,0"],
            ],
            hostClock: {
                tick += 0.001
                return host.addingTimeInterval(tick)
            })
        try FreeStyleDemo.record(reader, to: capture)
        let program = BuiltProducts.executable("glucobridge")
        let store = folder.appendingPathComponent("s.sqlite").path
        let replay = try runProcess(program, ["replay", capture.path, "--store", store, "--tz", "America/New_York"])
        XCTAssertEqual(replay.status, 0, replay.stderr)
        XCTAssertTrue(
            replay.stdout.contains("time: host-anchored wall clock (change log walked back from the host clock), clock error 0"), replay.stdout)
        XCTAssertTrue(
            replay.stdout.contains("note: applied the logged clock change arresult:3 from 2026-03-08T08:00:00 to 2026-03-08T09:00:00 (+1 h 0 min)"),
            replay.stdout)
        let export = try runProcess(program, ["export", "--format", "csv", "--store", store])
        XCTAssertEqual(export.status, 0, export.stderr)
        let rows = export.stdout.split(separator: "\n").dropFirst().map {
            $0.split(separator: ",", omittingEmptySubsequences: false).prefix(5).joined(separator: ",")
        }
        XCTAssertEqual(rows, ["2026-03-08T12:45:00Z,2026-03-08,70,3.9,in-range", "2026-03-08T13:15:00Z,2026-03-08,180,10.0,in-range"])
    }
}
