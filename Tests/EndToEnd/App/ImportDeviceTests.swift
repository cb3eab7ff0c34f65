import Foundation
import ImportTestSupport
import TestSupport
import XCTest

/// `glucobridge import --device`, as glucobridge-import@.service runs it, on this machine.
final class ImportDeviceTests: XCTestCase {
    func testAnEmptyAddressIsOneReadableLine() throws {
        let store = try Fixtures.temporaryDirectory().appendingPathComponent("s.sqlite").path
        let result = try runProcess(BuiltProducts.executable("glucobridge"), ["import", "--device", "/dev/bus/usb/001/127", "--store", store])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(
            result.stderr,
            "glucobridge: cannot open USB device bus 1 address 127: nothing is connected there (it was unplugged, or its address changed)\n")
    }

    func testAnUnreadableDeviceIsRefusedBeforeAnythingOpens() throws {
        let store = try Fixtures.temporaryDirectory().appendingPathComponent("s.sqlite")
        let result = try runProcess(
            BuiltProducts.executable("glucobridge"), ["import", "--device", "/sys/bus/usb/devices/9-9", "--store", store.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(
            result.stderr, "glucobridge: /sys/bus/usb/devices/9-9 is not a USB device's sysfs folder (it has no readable busnum and devnum files)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.path), "no store is created for a device that is not there")
    }
}
