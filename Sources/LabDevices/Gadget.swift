import Foundation
import Transport

#if canImport(Glibc)
    import Glibc
#endif

/// What went wrong while making or serving a lab device; the message names the file or call.
struct LabDeviceError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }

    /// `call` failed with the current `errno`.
    static func posix(_ call: String, _ path: String) -> LabDeviceError {
        LabDeviceError("\(call) \(path): \(String(cString: strerror(errno)))")
    }
}

/// A USB gadget made through configfs (Documentation/usb/gadget_configfs.rst in the kernel
/// tree): the device descriptor's ids and strings, one configuration, one function, bound to a
/// UDC. On the dummy_hcd UDC the gadget enumerates on the same kernel's host side as a real
/// device plugged into a port. Binding is a plug-in, unbinding an unplug.
final class Gadget {
    static let configfsRoot = "/sys/kernel/config/usb_gadget"

    let folder: String
    let udc: String
    let functionName: String

    /// Creates gadget `name` with `device`'s ids and strings and one function `function`
    /// (`ffs.NAME` or `hid.NAME`), whose attributes `configure` writes before it is linked.
    init(name: String, device: USBDeviceDescription, function: String, udc: String, configure: (String) throws -> Void) throws {
        folder = "\(Self.configfsRoot)/\(name)"
        self.udc = udc
        functionName = function
        try Self.makeFolder(folder)
        try write("0x" + String(device.vendorID, radix: 16), to: "idVendor")
        try write("0x" + String(device.productID, radix: 16), to: "idProduct")
        try write("0x0100", to: "bcdDevice")
        try write("0x0200", to: "bcdUSB")
        try Self.makeFolder("\(folder)/strings/0x409")
        try write(device.manufacturer ?? "glucobridge lab", to: "strings/0x409/manufacturer")
        try write(device.product ?? "lab device", to: "strings/0x409/product")
        try write(device.serialNumber ?? "LAB0001", to: "strings/0x409/serialnumber")
        try Self.makeFolder("\(folder)/configs/c.1/strings/0x409")
        try write("lab", to: "configs/c.1/strings/0x409/configuration")
        try write("250", to: "configs/c.1/MaxPower")
        try Self.makeFolder("\(folder)/functions/\(function)")
        try configure("\(folder)/functions/\(function)")
        guard symlink("\(folder)/functions/\(function)", "\(folder)/configs/c.1/\(function)") == 0 || errno == EEXIST else {
            throw LabDeviceError.posix("symlink", "\(folder)/configs/c.1/\(function)")
        }
    }

    /// Plugs the device in: binds the gadget to its UDC.
    func plug() throws {
        try write(udc, to: "UDC")
    }

    /// Unplugs the device: unbinds the gadget from its UDC.
    func unplug() throws {
        try write("\n", to: "UDC")
    }

    func write(_ text: String, to attribute: String) throws {
        try Self.write(Array(text.utf8), to: "\(folder)/\(attribute)")
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY)
        guard fd >= 0 else { throw LabDeviceError.posix("open", path) }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw LabDeviceError.posix("write", path) }
    }

    static func makeFolder(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw LabDeviceError("cannot create \(path): \(error.localizedDescription)")
        }
    }
}
