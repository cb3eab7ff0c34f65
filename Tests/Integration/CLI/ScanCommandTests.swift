import ArgumentParser
import CaptureBluetooth
import Foundation
import ImportTestSupport
import TestSupport
import Transport
import XCTest

@testable import glucobridge

#if canImport(Glibc)
    import Glibc
#endif

/// `glucobridge scan`: the listing, from real advertising reports, and the one-line failure on
/// this machine (no Bluetooth in the kernel).
final class ScanCommandTests: XCTestCase {
    func testListingFromCapturedAdvertising() throws {
        let treadmill = BLEScanResults(capture: try LECapture.read(contentsOf: Fixtures.url("ble/horizon-74-at-ble/btsnoop_hci.log")))
        let supported = ScanCommand.lines(treadmill.devices, all: false)
        XCTAssertEqual(supported.count, 1)
        XCTAssertTrue(supported[0].hasPrefix("FA:E4:E3:24:20:09,random  "), supported[0])
        XCTAssertTrue(supported[0].hasSuffix(" dBm  \"HORIZON 7.4AT 55FD\"  Fitness Machine"), supported[0])
        let everything = ScanCommand.lines(treadmill.devices, all: true)
        XCTAssertEqual(everything.count, 36)
        XCTAssertTrue(everything.contains(supported[0]))

        let synthetic = BLEScanResults(capture: try LECapture.read(contentsOf: Fixtures.url("ble/synthetic/synthetic-hrs-cgms-android-h4.btsnoop")))
        XCTAssertEqual(
            ScanCommand.lines(synthetic.devices, all: false),
            ["C0:11:22:33:44:55,random  -60 dBm  \"SynBand\"  Heart Rate, Continuous Glucose Monitoring"])
        XCTAssertEqual(ScanCommand.lines([], all: false), ["no supported sensor found"])
        var quiet = synthetic.devices
        quiet[0].serviceUUIDs = [BluetoothUUID(0x180F)]
        XCTAssertEqual(ScanCommand.lines(quiet, all: false), ["no supported sensor found (1 other Bluetooth device heard; --all lists them)"])
        XCTAssertEqual(ScanCommand.lines(quiet, all: true), ["C0:11:22:33:44:55,random  -60 dBm  \"SynBand\"  services 0x180F"])
    }

    func testOptions() throws {
        XCTAssertEqual(try ScanCommand.parse(["--seconds", "3", "--adapter", "hci1", "--all"]).seconds, 3)
        XCTAssertThrowsError(try ScanCommand.parse(["--seconds", "0"]))
    }

    /// The scan fails with exit code 1 (the built binary's run is in EndToEndTests).
    func testScanFailsWithOneLineHere() throws {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), 1)
        let code = errno
        if fd >= 0 { _ = close(fd) }
        guard fd < 0, code == EAFNOSUPPORT else { throw XCTSkip("this machine has Bluetooth; scanning would use a real radio") }

        XCTAssertThrowsError(try ScanCommand.parse(["--seconds", "1"]).run()) { error in
            XCTAssertEqual((error as? ExitCode)?.rawValue, 1)
        }
    }
}
