import Drivers
import Foundation
import ImportTestSupport
import Importer
import Logging
import Simulators
import Store
import TestSupport
import Transport
import XCTest

/// The text a person reads after every import of every fixture, simulator and demo recording:
/// the report the command line prints (twice, to show the second import adds nothing), and the
/// daemon's summary and log metadata of the same import (`ImportReport`). Each case's text is compared with its
/// file in `ReportSnapshots/`; paths are written relative to the repository and the store is
/// `<store>`. `GLUCOBRIDGE_RECORD_SNAPSHOTS=1 swift test --filter ImportReportSnapshotTests`
/// writes the files anew, for a change that means to alter what people read.
final class ImportReportSnapshotTests: XCTestCase {
    func testCaptureFixtures() throws {
        let captures = [
            "dexcom/ecc1-g4-receiver.pcap", "freestyle/libre-synthetic.pcap", "contour/contour-usb-session.txt",
            "lab/dexcom-g4-tcpdump-usbmon1.pcap", "lab/ecc1-g4-receiver-bulk-as-interrupt.pcap", "ble/hr-40min-walk.btsnoop",
            "ble/synthetic/synthetic-hrs-cgms-btmon-monitor.btsnoop", "ble/synthetic/synthetic-hrs-cgms-android-h4.btsnoop",
            "ble/horizon-74-at-ble/btsnoop_hci.log", "lab/hr-band-btmon-both-ends.btsnoop",
            "fit/Activity.fit", "fit/MonitoringFile.fit", "fit/garmin-edge-820-bike.fit", "fit/activity-unexpected-eof.fit",
            "fit/activity-filecrc.fit",
        ]
        for capture in captures {
            try assertSnapshot(
                named: capture.replacingOccurrences(of: "/", with: "--"), capture: Fixtures.url(capture))
        }
    }

    func testDemoAndSimulatorRecordings() throws {
        let folder = try Fixtures.temporaryDirectory()
        let demo = folder.appendingPathComponent("demo.pcap")
        try DemoCapture.record(pagesFolder: Fixtures.url("dexcom/ecc1"), to: demo)
        try assertSnapshot(named: "demo--dexcom-ecc1-pages", capture: demo)

        let history = folder.appendingPathComponent("history.pcap")
        try GeneratedHistory.record(days: 14, endingAt: Date(timeIntervalSince1970: 1_730_000_000), to: history)
        try assertSnapshot(named: "demo--generated-14-days", capture: history)

        let libre = folder.appendingPathComponent("libre.pcap")
        try FreeStyleDemo.record(to: libre)
        try assertSnapshot(named: "demo--freestyle-reader", capture: libre)

        let band = folder.appendingPathComponent("band.btsnoop")
        try HeartRateBandDemo.record(to: band)
        try assertSnapshot(named: "demo--heart-rate-band", capture: band)

        let cgm = folder.appendingPathComponent("cgm.btsnoop")
        try ContinuousGlucoseSensorDemo.record(tenths: [539, 540, 699, 700, 997, 1800, 1801, 2045], to: cgm)
        try assertSnapshot(named: "demo--bluetooth-cgm-edges", capture: cgm)
    }

    /// The same simulated devices imported as live sessions (no capture in between).
    func testLiveSessionsWithSimulators() throws {
        try assertLiveSnapshot(named: "live--heart-rate-band") { importer in
            let clock = SimulatedClock(HeartRateBandDemo.connected)
            return try importer.run(.bluetooth(ConnectedPeer(HeartRateBandDemo.band(clock: clock), origin: "simulated band")))
        }
        try assertLiveSnapshot(named: "live--freestyle-reader") { importer in
            try importer.run(.usb(OpenedUSBDevice(FreeStyleDemo.reader(), driver: FreeStyleDriver.self, origin: "simulated FreeStyle reader")))
        }
    }

    /// What a damaged capture's import says, and that it says the same on the second try.
    func testDamagedCaptures() throws {
        let folder = try Fixtures.temporaryDirectory()
        let bytes = [UInt8](try Data(contentsOf: Fixtures.url("dexcom/ecc1-g4-receiver.pcap")))
        let cuts = try CaptureCuts.boundaries(of: bytes)
        let cut = folder.appendingPathComponent("ecc1-cut.pcap")
        try Data(bytes[0..<cuts[cuts.count / 2]]).write(to: cut)
        try assertSnapshot(named: "damaged--ecc1-cut-in-half", capture: cut)

        let band = [UInt8](try Data(contentsOf: Fixtures.url("ble/hr-40min-walk.btsnoop")))
        let truncated = folder.appendingPathComponent("walk-truncated.btsnoop")
        try Data(band[0..<(band.count - 7)]).write(to: truncated)
        try assertSnapshot(named: "damaged--walk-last-record-short", capture: truncated)

        let empty = folder.appendingPathComponent("empty.pcap")
        try Data(bytes[0..<24]).write(to: empty)
        try assertSnapshot(named: "damaged--pcap-header-only", capture: empty)
    }

    // MARK: - Snapshots

    private static let snapshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ReportSnapshots")
    private static let recording = ProcessInfo.processInfo.environment["GLUCOBRIDGE_RECORD_SNAPSHOTS"] == "1"

    /// Replays `capture` twice into a fresh store, as `glucobridge replay` and the daemon's spool do.
    private func assertSnapshot(named name: String, capture: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        try assertLiveSnapshot(named: name, file: file, line: line) { importer in try importer.run(.capture(capture)) }
    }

    /// Runs `body` twice on a fresh store and compares the two reports with the snapshot `name`.
    private func assertLiveSnapshot(
        named name: String, file: StaticString = #filePath, line: UInt = #line,
        _ body: (Importer) throws -> ImportResult
    ) throws {
        let (store, _) = try makeStore()
        let importer = Importer(store: store, logger: Logger(label: "snapshot") { _ in SwiftLogNoOpLogHandler() })
        var text = ""
        for attempt in ["first import", "second import"] {
            text += "== \(attempt)\n"
            do {
                text += Self.text(ImportReport(try body(importer), store: store))
            } catch {
                text += "error: \(error)\n"
            }
        }
        try compare(text, store: store, named: name, file: file, line: line)
    }

    /// The report as the command line prints it, then the daemon's summary and log metadata.
    private static func text(_ report: ImportReport) -> String {
        var text = report.text + "\n-- daemon\ndevice: \(report.device)\n"
        text += report.counts.map { "counts: \($0)\n" }.joined()
        text += report.logMetadata.sorted { $0.key < $1.key }.map { "log \($0.key): \($0.value)\n" }.joined()
        return text
    }

    private func compare(_ raw: String, store: SharedStore, named name: String, file: StaticString, line: UInt) throws {
        let root = Fixtures.repositoryRoot.path + "/"
        var text = raw.replacingOccurrences(of: store.path, with: "<store>").replacingOccurrences(of: root, with: "")
        text = text.replacingOccurrences(
            of: #"/[^ \n]*/glucobridge-tests-[0-9]+/[0-9A-F-]+/"#, with: "<temporary>/", options: .regularExpression)
        let url = Self.snapshots.appendingPathComponent(name + ".txt")
        if Self.recording {
            try FileManager.default.createDirectory(at: Self.snapshots, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
            return
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            return XCTFail("no snapshot \(url.lastPathComponent); record it with GLUCOBRIDGE_RECORD_SNAPSHOTS=1", file: file, line: line)
        }
        if text != expected {
            let ours = text.split(separator: "\n", omittingEmptySubsequences: false)
            let theirs = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let first = (0..<min(ours.count, theirs.count)).first { ours[$0] != theirs[$0] } ?? min(ours.count, theirs.count)
            XCTFail(
                "\(name): the report differs from its snapshot at line \(first + 1):\n  now:      "
                    + (first < ours.count ? String(ours[first]) : "(end)") + "\n  snapshot: "
                    + (first < theirs.count ? String(theirs[first]) : "(end)"), file: file, line: line)
        }
    }
}
