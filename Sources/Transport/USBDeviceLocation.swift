import Foundation

/// Where a device sits on the USB bus: its bus number and device address, as `lsusb` shows them
/// and as `/dev/bus/usb/BBB/DDD` names its node.
package struct USBDeviceLocation: Sendable, Hashable, CustomStringConvertible {
    package var bus: UInt16
    package var address: UInt8

    package init(bus: UInt16, address: UInt8) {
        self.bus = bus
        self.address = address
    }

    /// Reads a location from any of the ways a device is named on Linux:
    /// - `BUS:ADDRESS` or `BUS/ADDRESS` (`1:5`, `001/005`);
    /// - the device node, `/dev/bus/usb/001/005`;
    /// - the device's sysfs folder, `/sys/bus/usb/devices/1-1.4` or `/sys/devices/…/1-1.4`, whose
    ///   `busnum` and `devnum` files are read.
    package init(parsing text: String) throws(USBDeviceLocationError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("/sys/") {
            try self.init(sysfsFolder: trimmed)
            return
        }
        var numbers = trimmed
        if trimmed.hasPrefix("/dev/bus/usb/") {
            numbers = String(trimmed.dropFirst("/dev/bus/usb/".count))
        } else if trimmed.hasPrefix("/") {
            throw .unrecognised(text)
        }
        let parts = numbers.split(omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == "/" })
        guard parts.count == 2, let bus = UInt16(parts[0]), let address = UInt8(parts[1]) else {
            throw .unrecognised(text)
        }
        guard bus >= 1, (1...127).contains(address) else { throw .outOfRange(text) }
        self.init(bus: bus, address: address)
    }

    /// The usbfs device node, `/dev/bus/usb/001/005`.
    package var devicePath: String { String(format: "/dev/bus/usb/%03d/%03d", Int(bus), Int(address)) }

    /// `bus 1 address 5`.
    package var description: String { "bus \(bus) address \(address)" }

    /// Reads the `busnum` and `devnum` files of a device's sysfs folder.
    init(sysfsFolder path: String) throws(USBDeviceLocationError) {
        func number(_ name: String) throws(USBDeviceLocationError) -> Int {
            let file = (path as NSString).appendingPathComponent(name)
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw .notAUSBDevice(path) }
            guard let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw .notAUSBDevice(path)
            }
            return value
        }
        let bus = try number("busnum")
        let address = try number("devnum")
        guard let bus16 = UInt16(exactly: bus), bus16 >= 1, let address8 = UInt8(exactly: address), (1...127).contains(address8) else {
            throw .outOfRange(path)
        }
        self.init(bus: bus16, address: address8)
    }
}

/// Why a device location could not be read.
package enum USBDeviceLocationError: Error, Equatable, CustomStringConvertible {
    case unrecognised(String)
    case outOfRange(String)
    /// A sysfs path without readable `busnum` and `devnum` files.
    case notAUSBDevice(String)

    package var description: String {
        switch self {
        case .unrecognised(let text):
            "cannot read \"\(text)\" as a USB device: give BUS:ADDRESS (1:5), /dev/bus/usb/001/005 or a sysfs path (/sys/bus/usb/devices/1-1.4)"
        case .outOfRange(let text):
            "\"\(text)\" is not a USB device location: buses start at 1 and addresses run from 1 to 127"
        case .notAUSBDevice(let path):
            "\(path) is not a USB device's sysfs folder (it has no readable busnum and devnum files)"
        }
    }
}
