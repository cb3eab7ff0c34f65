import Foundation
import ImportTestSupport
import Store
import TestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// The Bluetooth commands run as a user runs them, on this machine whose kernel has no Bluetooth:
/// exit status 1 and exactly one line on stderr.
final class BluetoothCommandEndToEndTests: XCTestCase {
    func testImportBLEFailsWithOneLineHere() throws {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_SEQPACKET.rawValue), 1)
        let code = errno
        if fd >= 0 { _ = close(fd) }
        guard fd < 0, code == EAFNOSUPPORT else { throw XCTSkip("this machine has Bluetooth; connecting would use a real radio") }

        let folder = try Fixtures.temporaryDirectory()
        let store = try SharedStore(path: folder.appendingPathComponent("s.sqlite").path, timeZone: TimeZone(identifier: "UTC")!)
        let result = try runProcess(
            BuiltProducts.executable("glucobridge"), ["import", "--ble", "C0:11:22:33:44:55", "--record", "/dev/null", "--store", store.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "glucobridge: this kernel has no Bluetooth support (socket: Address family not supported by protocol)\n")
        XCTAssertEqual(result.stdout, "")

        // The old form reads the same device, after one line naming the new form.
        let old = try runProcess(
            BuiltProducts.executable("glucobridge"),
            ["import", "--ble", "C0:11:22:33:44:55", "--address-type", "public", "--store", store.path])
        XCTAssertEqual(old.status, 1)
        XCTAssertEqual(
            old.stderr,
            """
            hint: --ble C0:11:22:33:44:55 --address-type public still works; write it as --ble C0:11:22:33:44:55,public
            glucobridge: this kernel has no Bluetooth support (socket: Address family not supported by protocol)

            """)
    }

    func testScanFailsWithOneLineHere() throws {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), 1)
        let code = errno
        if fd >= 0 { _ = close(fd) }
        guard fd < 0, code == EAFNOSUPPORT else { throw XCTSkip("this machine has Bluetooth; scanning would use a real radio") }

        let result = try runProcess(BuiltProducts.executable("glucobridge"), ["scan", "--seconds", "1"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "glucobridge: this kernel has no Bluetooth support (socket: Address family not supported by protocol)\n")
        XCTAssertEqual(result.stdout, "")
    }
}
