import CaptureBluetooth
import Drivers
import Foundation
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import Transport
import XCTest

/// Sessions that go wrong: the device refuses what glucobridge needs, or what it can do
/// without; a capture cut short.
final class SessionFailureTests: XCTestCase {
    func band(refusing uuid: UInt16, with code: ATTErrorCode) -> SimulatedPeripheral {
        let band = HeartRateBandDemo.band(clock: SimulatedClock(HeartRateBandDemo.connected))
        band.refusals[BluetoothUUID(uuid)] = code
        return band
    }

    /// An unpaired band refuses the subscription: the import fails with the device's answer and
    /// what to do, and nothing is stored.
    func testRefusedSubscriptionFailsWithThePairingHint() throws {
        let store = try freshStore(zone: "UTC")
        XCTAssertThrowsError(
            try Importer(store: store).importOneBLE(over: band(refusing: 0x2A37, with: .insufficientAuthentication), origin: "sim")
        ) { error in
            XCTAssertEqual(
                "\(error)",
                "the device refused the Write Request on handle 0x000E: Insufficient Authentication (0x05) — pair the device "
                    + "first (bluetoothctl pair ADDRESS) so the link can be encrypted")
        }
        XCTAssertEqual(try tableCounts(store).values.reduce(0, +), 0)
    }

    /// A read the session can do without is noted and the session goes on.
    func testRefusedOptionalReadIsNoted() throws {
        let store = try freshStore(zone: "UTC")
        let outcome = try Importer(store: store).importOneBLE(over: band(refusing: 0x2A38, with: .readNotPermitted), origin: "sim")
        XCTAssertTrue(
            outcome.notes.contains(
                "Body Sensor Location not read: the device refused the Read Request on handle 0x0010: Read Not Permitted (0x02)"),
            "\(outcome.notes)")
        XCTAssertEqual(outcome.activity?.summary.samplesRead, 3000)
        XCTAssertFalse(outcome.activity?.notes.contains { $0.hasPrefix("heart rate sensor worn") } ?? true)
    }

    /// The walk capture cut in the middle of a record is refused with the record and offset
    /// named, and nothing is stored (the replay never starts on a file it cannot read whole).
    func testCaptureCutShort() throws {
        let bytes = try Data(contentsOf: Fixtures.url("ble/hr-40min-walk.btsnoop"))
        let cut = try Fixtures.temporaryDirectory().appendingPathComponent("cut-walk.btsnoop")
        try bytes.prefix(60_000).write(to: cut)
        let store = try freshStore(zone: "UTC")
        XCTAssertThrowsError(try Importer(store: store).replayOneBLE(captureAt: cut)) { error in
            XCTAssertEqual(
                "\(error)", "cut-walk.btsnoop: record 1492 at byte 59974 claims 16 bytes of packet data but only 2 remain — the file is cut short")
        }
        XCTAssertEqual(try tableCounts(store).values.reduce(0, +), 0)
    }
}
