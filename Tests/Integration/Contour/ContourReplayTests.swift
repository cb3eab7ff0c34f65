import CaptureUSB
import Drivers
import Foundation
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import XCTest

final class ContourReplayTests: XCTestCase {
    let session = Fixtures.url("contour/contour-usb-session.txt")

    func testTranscriptIsReproducible() throws {
        let fresh = try ContourDemo.transcript(fixtures: Fixtures.url("contour"))
        if ProcessInfo.processInfo.environment["GLUCOBRIDGE_WRITE_FIXTURES"] == "1" {
            try fresh.write(to: session, atomically: true, encoding: .utf8)
        }
        XCTAssertEqual(fresh, try String(contentsOf: session, encoding: .utf8))
    }

    func testConversationReplayStoresTheResults() throws {
        let folder = try Fixtures.temporaryDirectory()
        let store = try SharedStore(path: folder.appendingPathComponent("s.sqlite").path, timeZone: TimeZone(identifier: "Europe/Berlin")!)
        let importer = Importer(store: store)
        let outcome = try importer.replayOne(captureAt: session)
        XCTAssertEqual(outcome.replayMode, .conversation)
        XCTAssertTrue(outcome.notes.contains("no device descriptors in the capture; the traffic was recognised as contour"), "\(outcome.notes)")
        XCTAssertEqual(outcome.source, DeviceSource(family: "contour", serial: "7390-2336773", model: "Bayer7390"))
        XCTAssertEqual(outcome.summary.added, 2)
        XCTAssertEqual(outcome.clock.method, .deviceLocalTime)
        let stored = try store.glucose()  // by time
        XCTAssertEqual(stored.map(\.mgdl), [133, 93])
        XCTAssertEqual(stored.map(\.recordKey), ["result:8@201202052034", "result:3@201505261150"])
        XCTAssertEqual(stored.map(\.kind), [.fingerstick, .fingerstick])
        // Markers B/X and A/M0/T1 (M and T of unknown meaning, kept as written).
        XCTAssertEqual(stored.map(\.note), ["before meal; activity", "after meal; M0; T1"])
        // Meter wall clock 2012-02-05 20:34 in Berlin (UTC+1) is 19:34 UTC; 2015-05-26 11:50 (UTC+2) is 09:50 UTC.
        XCTAssertEqual(
            stored.map(\.time),
            [
                ISO8601DateFormatter().date(from: "2012-02-05T19:34:00Z")!, ISO8601DateFormatter().date(from: "2015-05-26T09:50:00Z")!,
            ])
        XCTAssertEqual(stored.map(\.day.description), ["2012-02-05", "2015-05-26"])

        let again = try importer.replayOne(captureAt: session)
        XCTAssertEqual(again.summary.added, 0)
        XCTAssertEqual(again.summary.alreadyStored, 2)
    }

    /// The host's side of the recorded conversation holds only ACKs: the meter is never sent a command.
    func testTheHostOnlyAcknowledges() throws {
        let capture = try USBCaptureReader.read(contentsOf: session)
        let sent = capture.transfers.filter { $0.direction == .out }
        XCTAssertEqual(sent.count, 4)
        for transfer in sent {
            XCTAssertEqual(Array(try ContourReport.payload(of: transfer.data, location: "test")), [ASTMControl.ack.rawValue])
        }
    }

    /// A damaged frame in a capture: clear error, nothing stored.
    func testDamagedFrameStoresNothing() throws {
        var text = try String(contentsOf: session, encoding: .utf8)
        // Corrupt the value of result 3 ("93" → "94") inside its report.
        text = text.replacingOccurrences(of: "7C 39 33 7C", with: "7C 39 34 7C")
        let folder = try Fixtures.temporaryDirectory()
        let damaged = folder.appendingPathComponent("damaged.txt")
        try text.write(to: damaged, atomically: true, encoding: .utf8)
        let store = try SharedStore(path: folder.appendingPathComponent("s.sqlite").path, timeZone: TimeZone(identifier: "UTC")!)
        XCTAssertThrowsError(try Importer(store: store).replayOne(captureAt: damaged, driverName: "contour")) { error in
            XCTAssertTrue("\(error)".hasPrefix("ASTM frame 5 (R|3|"), "\(error)")
            // The pipeline keeps the family's error, and its location is a packet number.
            guard case .driver(let driverError)? = error as? ImportError, case .frameChecksumMismatch(let frame, _, _)? = driverError as? ContourError
            else { return XCTFail("\(error)") }
            XCTAssertNotNil(frame.packet, "\(frame)")
            XCTAssertEqual(frame.message?.hasPrefix("5 (R|3|"), true, "\(frame)")
        }
        XCTAssertEqual(try store.glucose().count, 0)
    }
}
