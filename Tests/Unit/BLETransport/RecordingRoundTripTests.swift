import CaptureBluetooth
import Foundation
import TestSupport
import Transport
import XCTest

@testable import Transport
@testable import TransportReplay

/// A session recorded through `RecordingATTBearer` replays to the same driver with the same
/// results. The recorded bearer is a replay of the synthetic capture standing in for a live link
/// (there is no Bluetooth here); the recorder cannot tell the difference either.
final class RecordingRoundTripTests: XCTestCase {
    func testRecordedSessionReplaysIdentically() throws {
        let source = try ReplayATTBearer(contentsOf: SyntheticReplayTests.files[0])
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("recorded.btsnoop")
        let recorder = try RecordingATTBearer(recording: source, to: url, clock: { source.now })
        let original = try SyntheticReplayTests.runSession(ATTClient(bearer: recorder))
        recorder.close()
        XCTAssertNil(recorder.recordingError)

        // The file is a btsnoop capture of one LE connection holding exactly the ATT stream of the
        // original, device PDUs at their original times.
        let recorded = try LECapture.read(contentsOf: url)
        XCTAssertEqual(recorded.file.datalink, .hciUART)
        let link = try XCTUnwrap(recorded.connections.first)
        XCTAssertEqual(recorded.connections.count, 1)
        XCTAssertEqual(link.peerAddress, BluetoothAddress("C0:11:22:33:44:55"))
        XCTAssertEqual(link.peerAddressType, .random)
        XCTAssertEqual(link.handle, 0x0040)
        XCTAssertEqual(link.disconnectReason, 0x13, "the device left first")
        let originalLink = try XCTUnwrap(LECapture.read(contentsOf: SyntheticReplayTests.files[0]).connections.first)
        XCTAssertEqual(link.att.map(\.bytes), originalLink.att.map(\.bytes))
        XCTAssertEqual(link.att.map(\.direction), originalLink.att.map(\.direction))
        XCTAssertEqual(
            link.att.filter { $0.direction == .received }.map(\.timestamp),
            originalLink.att.filter { $0.direction == .received }.map(\.timestamp))

        // Replaying the recording gives the driver the same session.
        let replayed = try SyntheticReplayTests.runSession(ATTClient(bearer: ReplayATTBearer(contentsOf: url)))
        XCTAssertEqual(replayed.dropLast(), original.dropLast())
        XCTAssertEqual(
            replayed.last,
            "end: the Bluetooth connection ended: the device disconnected (remote user terminated connection, recorded.btsnoop record 58)")
        XCTAssertEqual(replayed.count, 22)
    }

    /// Closing the session ourselves records a local-host disconnection.
    func testLocalCloseIsRecorded() throws {
        let source = try ReplayATTBearer(contentsOf: SyntheticReplayTests.files[1])
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("short.btsnoop")
        let client = ATTClient(bearer: try RecordingATTBearer(recording: source, to: url, clock: { source.now }))
        XCTAssertEqual(try client.exchangeMTU(preferred: 65), 65)
        client.disconnect()
        XCTAssertThrowsError(try client.read(handle: 0x15)) { error in
            XCTAssertEqual(error as? BLEError, .disconnected("closed by glucobridge"))
        }
        let link = try XCTUnwrap(LECapture.read(contentsOf: url).connections.first)
        XCTAssertEqual(link.att.map(\.bytes), [hexBytes("024100"), hexBytes("034100")])
        XCTAssertEqual(link.disconnectReason, 0x16)
        XCTAssertEqual(HCIEvent.reasonName(0x16), "connection terminated by local host")
    }

    func testUnwritableRecording() {
        let source = try! ReplayATTBearer(contentsOf: SyntheticReplayTests.files[0])
        XCTAssertThrowsError(try RecordingATTBearer(recording: source, to: URL(fileURLWithPath: "/nonexistent/dir/x.btsnoop"))) { error in
            XCTAssertEqual(
                "\(error)",
                "cannot record the Bluetooth session: x.btsnoop: cannot write the btsnoop capture: cannot create /nonexistent/dir/x.btsnoop "
                    + "(missing folder or no permission)")
        }
    }
}
