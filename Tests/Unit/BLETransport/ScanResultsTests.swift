import CaptureBluetooth
import Foundation
import TestSupport
import Transport
import XCTest

/// Advertising reports merged per device, from a real capture (no radio needed).
final class ScanResultsTests: XCTestCase {
    /// Advertising reports from the real treadmill capture, merged per device: the treadmill's
    /// name comes from its scan response, its services from both packets.
    func testScanResultsFromRealAdvertising() throws {
        let capture = try LECapture.read(contentsOf: Fixtures.url("ble/horizon-74-at-ble/btsnoop_hci.log"))
        let results = BLEScanResults(capture: capture)
        let treadmill = try XCTUnwrap(results.devices.first { $0.address == BluetoothAddress("FA:E4:E3:24:20:09") })
        XCTAssertEqual(treadmill.name, "HORIZON 7.4AT 55FD")
        XCTAssertEqual(treadmill.serviceUUIDs, [BluetoothUUID(0xFEE7), BluetoothUUID(0x1826)])
        XCTAssertEqual(treadmill.addressType, 1)
        XCTAssertEqual(treadmill.peer, BLEPeer(address: BluetoothAddress("FA:E4:E3:24:20:09")!, addressType: .random, name: "HORIZON 7.4AT 55FD"))
        // 412 reports from 36 addresses (counted with an independent script).
        XCTAssertEqual(capture.advertisingReports.count, 412)
        XCTAssertEqual(results.devices.reduce(0) { $0 + $1.reports }, 412)
        XCTAssertEqual(results.devices.count, 36)
    }
}
