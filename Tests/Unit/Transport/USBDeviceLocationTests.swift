import Foundation
import TestSupport
import XCTest

@testable import Transport

final class USBDeviceLocationTests: XCTestCase {
    func testTheWaysADeviceIsNamed() throws {
        for text in ["1:5", "001/005", "/dev/bus/usb/001/005", " 1:5 "] {
            XCTAssertEqual(try USBDeviceLocation(parsing: text), USBDeviceLocation(bus: 1, address: 5), text)
        }
        XCTAssertEqual(USBDeviceLocation(bus: 3, address: 17).devicePath, "/dev/bus/usb/003/017")
        XCTAssertEqual(USBDeviceLocation(bus: 3, address: 17).description, "bus 3 address 17")
    }

    func testUnreadableLocations() {
        XCTAssertThrowsError(try USBDeviceLocation(parsing: "22a3:0047")) {
            XCTAssertEqual($0 as? USBDeviceLocationError, .unrecognised("22a3:0047"))
        }
        XCTAssertThrowsError(try USBDeviceLocation(parsing: "/dev/ttyACM0")) {
            XCTAssertEqual(
                "\($0)",
                "cannot read \"/dev/ttyACM0\" as a USB device: give BUS:ADDRESS (1:5), /dev/bus/usb/001/005 or a sysfs path (/sys/bus/usb/devices/1-1.4)"
            )
        }
        for text in ["0:5", "1:0", "1:128"] {
            XCTAssertThrowsError(try USBDeviceLocation(parsing: text)) { XCTAssertEqual($0 as? USBDeviceLocationError, .outOfRange(text)) }
        }
    }

    /// A sysfs folder is read through its busnum and devnum files (a copy of a real device's two
    /// files, since this machine has no USB bus).
    func testSysfsFolder() throws {
        let root = try Fixtures.temporaryDirectory()
        let device = root.appendingPathComponent("1-1.4")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        try "2\n".write(to: device.appendingPathComponent("busnum"), atomically: true, encoding: .utf8)
        try "9\n".write(to: device.appendingPathComponent("devnum"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try USBDeviceLocation(sysfsFolder: device.path), USBDeviceLocation(bus: 2, address: 9))
        XCTAssertThrowsError(try USBDeviceLocation(parsing: "/sys/bus/usb/devices/9-9.9")) {
            XCTAssertEqual($0 as? USBDeviceLocationError, .notAUSBDevice("/sys/bus/usb/devices/9-9.9"))
        }
    }
}
