import Drivers
import Foundation
import ImportTestSupport
import Importer
import Store
import TestSupport
import XCTest

/// Inputs the fuzz targets in Fuzz/ found crashing or hanging glucobridge, kept in
/// `fixtures/fuzz-findings/` and run here through the same code, and through a whole replay:
/// each now ends with a typed error or a result, within the watchdog's time, storing nothing wrong.
final class FuzzFindingTests: XCTestCase {
    let folder = Fixtures.url("fuzz-findings")

    func findings(_ prefix: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasPrefix(prefix) }.sorted { $0.path < $1.path }
    }

    /// `astm-*`: a meter's byte stream. The first: a header whose reportable range `V=10006` runs
    /// from 10 down to 6, which trapped building `10...6`; now the header is refused.
    func testASTMFindings() throws {
        let inputs = try findings("astm-")
        XCTAssertFalse(inputs.isEmpty)
        for input in inputs {
            let bytes = [UInt8](try Data(contentsOf: input))
            let outcome = withWatchdog(seconds: 20) { () -> String in
                var decoder = ASTMLinkDecoder()
                var session = ContourSession()
                decoder.append(bytes)
                do {
                    while let event = try decoder.next(location: "test") {
                        if case .frame(let frame) = event { try session.absorb(frame, hostTime: nil) }
                    }
                    return "decoded: \(try session.normalised().glucose.count) readings"
                } catch {
                    return "\(error)"
                }
            }
            XCTAssertNotNil(outcome, "\(input.lastPathComponent) did not end")
            if input.lastPathComponent == "astm-header-range-inverted.bin" {
                XCTAssertEqual(
                    try XCTUnwrap(outcome).get().contains("the reportable range V=10006 has its low limit 10 above its high limit 6"), true)
            }
        }
    }

    /// The same meter streams, as a Contour capture replayed into a store: an error, nothing stored.
    func testASTMFindingsReplayedStoreNothing() throws {
        for input in try findings("astm-") {
            let bytes = [UInt8](try Data(contentsOf: input))
            // 60-byte payloads in `ABC`+length HID reports, one transcript line each.
            var lines = ["# \(input.lastPathComponent) as meter reports"]
            for start in stride(from: 0, to: bytes.count, by: ContourReport.maximumPayload) {
                for report in ContourReport.reports(carrying: Array(bytes[start..<min(bytes.count, start + ContourReport.maximumPayload)])) {
                    lines.append("in," + report.map { String(format: "%02X", $0) }.joined(separator: " "))
                }
            }
            let directory = try Fixtures.temporaryDirectory()
            let capture = directory.appendingPathComponent("finding.txt")
            try (lines.joined(separator: "\n") + "\n").write(to: capture, atomically: true, encoding: .utf8)
            let (store, _) = try makeStore()
            let result = withWatchdog(seconds: 20) { try Importer(store: store).replayOne(captureAt: capture, driverName: "contour") }
            guard let result else { return XCTFail("\(input.lastPathComponent): the replay did not end") }
            if case .success = result { XCTFail("\(input.lastPathComponent) imported") }
            XCTAssertEqual(try store.glucose().count, 0)
        }
    }
}
