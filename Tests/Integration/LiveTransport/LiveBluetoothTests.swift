import CBluetooth
import CaptureBluetooth
import Foundation
import ImportTestSupport
import TestSupport
import Transport
import XCTest

@testable import Transport
@testable import TransportBlueZ

#if canImport(Glibc)
    import Glibc
#endif

/// The live paths on this machine, whose kernel has no Bluetooth: each fails with one line and
/// nothing crashes. The parts that need no radio (report parsing) run on captured bytes.
final class LiveBluetoothTests: XCTestCase {
    static let noSupport = "this kernel has no Bluetooth support (socket: Address family not supported by protocol)"
    static let syntheticCapture = Fixtures.url("ble/synthetic/synthetic-hrs-cgms-android-h4.btsnoop")

    /// Skips on machines that do have Bluetooth: there the live calls would touch real radios.
    func requireNoBluetoothKernel() throws {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_SEQPACKET.rawValue), BTPROTO_L2CAP)
        let code = errno
        if fd >= 0 { _ = close(fd) }
        guard fd < 0, code == EAFNOSUPPORT else {
            throw XCTSkip("this machine has a Bluetooth stack; the no-support paths are not reachable here")
        }
    }

    func testConnectFailsWithOneLine() throws {
        try requireNoBluetoothKernel()
        let peer = BLEPeer(address: BluetoothAddress("C0:11:22:33:44:55")!, addressType: .random)
        XCTAssertThrowsError(try L2CAPATTBearer.connect(to: peer)) { error in
            XCTAssertEqual(error as? BLEError, .bluetoothUnavailable(Self.noSupport))
            XCTAssertEqual("\(error)", Self.noSupport)
        }
        XCTAssertThrowsError(try L2CAPATTBearer.connect(to: peer, adapter: "hci0", security: .medium, timeout: .seconds(1))) { error in
            XCTAssertEqual("\(error)", Self.noSupport)
        }
    }

    func testScanFailsWithOneLine() throws {
        try requireNoBluetoothKernel()
        XCTAssertThrowsError(try BLEScanner.scan(for: .seconds(1))) { error in
            XCTAssertEqual(error as? BLEError, .bluetoothUnavailable(Self.noSupport))
        }
        XCTAssertThrowsError(try BLEScanner.scan(for: .seconds(1), adapter: "hci1")) { error in
            XCTAssertEqual("\(error)", Self.noSupport)
        }
    }

    /// The raw-socket read path decodes an advertising report packet (H4 byte first), here the
    /// one from the synthetic capture.
    func testScannerParsesAnHCIPacket() throws {
        let file = try BTSnoopReader.read(contentsOf: Self.syntheticCapture)
        let packet = file.packets[4].data
        XCTAssertEqual(Hex.encode(packet, separator: "").lowercased(), "043e1e020100015544332211c01202010605030d181f18080953796e42616e64c4")
        let reports = BLEScanner.reports(in: packet)
        XCTAssertEqual(reports.count, 1)
        XCTAssertEqual(reports.first?.advertisingData.localName, "SynBand")
        XCTAssertEqual(reports.first?.rssi, -60)
        XCTAssertEqual(BLEScanner.reports(in: Array(packet.dropLast(3))), [], "a cut packet yields nothing")
        XCTAssertEqual(BLEScanner.reports(in: file.packets[1].data), [], "a Command Complete is not a report")
    }

    func testScanCommandLayouts() {
        XCTAssertEqual(BLEScanner.legacyParameters(active: true), [0x01, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00])
        XCTAssertEqual(BLEScanner.extendedParameters(active: false), [0x00, 0x00, 0x01, 0x00, 0x10, 0x00, 0x10, 0x00])
        // The synthetic capture's scan commands carry the same 7 parameter bytes.
        XCTAssertEqual(
            (try? BTSnoopReader.read(contentsOf: Self.syntheticCapture))?.packets[0].packet,
            .command(opcode: UInt16(OGF_LE_CTL) << 10 | BLEScanner.setScanParameters, parameters: BLEScanner.legacyParameters(active: true)))
        XCTAssertEqual(BluetoothSocket.milliseconds(.seconds(2)), 2000)
        XCTAssertEqual(BluetoothSocket.milliseconds(.microseconds(1500)), 2, "rounded up, never a busy 0")
        XCTAssertEqual(BluetoothSocket.milliseconds(.zero), 0)
        XCTAssertEqual(BluetoothSocket.bdaddr(BluetoothAddress("C0:11:22:33:44:55")!).b.0, 0x55)
    }
}
