import CLibUSB
import Foundation
import Transport

/// A libusb session: the handle through which glucobridge finds USB devices and opens them.
///
/// On a real machine `libusb_init` starts libusb's udev-backed device tracking; `devices(matching:)`
/// then lists what is plugged in, reading descriptors from sysfs (no access to the device node
/// needed) and string descriptors from the device when this process may open it. Every
/// `LibUSBTransport` keeps its context alive, so `libusb_exit` runs only after the last device
/// opened through it is closed.
///
/// Sendable: the object holds nothing but an immutable pointer to the C context, libusb's
/// synchronous API is documented as thread-safe for concurrent use of one context, and
/// `libusb_exit` runs in `deinit`, when no other reference can exist.
package final class LibUSBContext: @unchecked Sendable {
    /// How much libusb itself writes to stderr. The `LIBUSB_DEBUG` environment variable, when set,
    /// takes precedence (libusb ignores the option then), which keeps field debugging possible.
    package enum LogLevel: Int32, Sendable {
        case none = 0
        case error = 1
        case warning = 2
        case info = 3
        case debug = 4
    }

    let pointer: OpaquePointer

    /// Starts a libusb session. Throws `.usbUnavailable("<libusb error name>: <description>")`
    /// when libusb cannot start (for instance no udev, or out of memory).
    package init(logLevel: LogLevel = .none) throws(TransportError) {
        var context: OpaquePointer?
        let rc = libusb_init(&context)
        guard rc == LibUSB.success, let context else {
            throw .usbUnavailable(LibUSB.describe(rc))
        }
        pointer = context
        _ = clibusb_set_log_level(context, logLevel.rawValue)
    }

    deinit {
        libusb_exit(pointer)
    }

    /// The libusb library version in use, e.g. `1.0.26.11724`.
    package static var libraryVersion: String {
        let version = libusb_get_version().pointee
        return "\(version.major).\(version.minor).\(version.micro).\(version.nano)"
    }

    /// The devices on every USB bus, optionally only those whose vendor and product IDs are in
    /// `ids`, in libusb's enumeration order.
    ///
    /// Each description carries the bus number and address, and the interfaces (alternate setting
    /// 0) of the active configuration — or of the first one when the device is unconfigured.
    /// Manufacturer, product and serial strings are read only when the device can be opened; a
    /// device this user may not open is still listed, without them. A machine without a USB bus
    /// gives an empty list. Throws `.usbUnavailable` only when libusb cannot list devices at all.
    package func devices(matching ids: [(vendor: UInt16, product: UInt16)]? = nil) throws(TransportError) -> [USBDeviceDescription] {
        try withDeviceList { list throws(TransportError) in
            list.compactMap { entry -> USBDeviceDescription? in
                guard let device = entry else { return nil }
                let descriptor = Self.deviceDescriptor(device)
                if let ids, !ids.contains(where: { $0.vendor == descriptor.idVendor && $0.product == descriptor.idProduct }) {
                    return nil
                }
                var handle: OpaquePointer?
                guard libusb_open(device, &handle) == LibUSB.success, let handle else {
                    return Self.describe(device, handle: nil)
                }
                defer { libusb_close(handle) }
                return Self.describe(device, handle: handle)
            }
        }
    }

    /// Runs `body` over libusb's current device list, and frees the list (dropping its device
    /// references) whatever happens.
    func withDeviceList<Result>(
        _ body: (UnsafeBufferPointer<OpaquePointer?>) throws(TransportError) -> Result
    ) throws(TransportError) -> Result {
        var list: UnsafeMutablePointer<OpaquePointer?>?
        let count = libusb_get_device_list(pointer, &list)
        guard count >= 0 else {
            throw .usbUnavailable("cannot list USB devices: \(LibUSB.describe(Int32(truncatingIfNeeded: count)))")
        }
        defer { libusb_free_device_list(list, 1) }
        return try body(UnsafeBufferPointer(start: list, count: count))
    }

    static func deviceDescriptor(_ device: OpaquePointer) -> libusb_device_descriptor {
        var descriptor = libusb_device_descriptor()
        // Cannot fail since libusb 1.0.16: the descriptor is cached at enumeration.
        _ = libusb_get_device_descriptor(device, &descriptor)
        return descriptor
    }

    /// Everything known of `device`: identity, location, interfaces, and — when `handle` is an
    /// open handle to it — its string descriptors.
    static func describe(_ device: OpaquePointer, handle: OpaquePointer?) -> USBDeviceDescription {
        let descriptor = deviceDescriptor(device)
        var description = USBDeviceDescription(
            vendorID: descriptor.idVendor, productID: descriptor.idProduct,
            bus: UInt16(libusb_get_bus_number(device)), address: libusb_get_device_address(device),
            interfaces: interfaces(of: device))
        if let handle {
            description.manufacturer = string(handle, index: descriptor.iManufacturer)
            description.product = string(handle, index: descriptor.iProduct)
            description.serialNumber = string(handle, index: descriptor.iSerialNumber)
        }
        return description
    }

    /// The interfaces of the active configuration (or the first configuration when the device is
    /// not configured), alternate setting 0 of each; empty when no configuration can be read.
    static func interfaces(of device: OpaquePointer) -> [USBInterface] {
        var config: UnsafeMutablePointer<libusb_config_descriptor>?
        if libusb_get_active_config_descriptor(device, &config) != LibUSB.success || config == nil {
            config = nil
            guard libusb_get_config_descriptor(device, 0, &config) == LibUSB.success else { return [] }
        }
        guard let config else { return [] }
        defer { libusb_free_config_descriptor(config) }

        var result: [USBInterface] = []
        for i in 0..<Int(config.pointee.bNumInterfaces) {
            let interface = config.pointee.interface[i]
            let settings = UnsafeBufferPointer(start: interface.altsetting, count: Int(max(interface.num_altsetting, 0)))
            guard let setting = settings.first(where: { $0.bAlternateSetting == 0 }) ?? settings.first else { continue }
            let endpoints = UnsafeBufferPointer(start: setting.endpoint, count: Int(setting.bNumEndpoints)).map {
                USBEndpoint(
                    address: $0.bEndpointAddress, type: USBDescriptors.transferType(bmAttributes: $0.bmAttributes),
                    maxPacketSize: LibUSB.maxPacketSize(wMaxPacketSize: $0.wMaxPacketSize))
            }
            result.append(
                USBInterface(
                    number: setting.bInterfaceNumber, interfaceClass: setting.bInterfaceClass,
                    interfaceSubclass: setting.bInterfaceSubClass, interfaceProtocol: setting.bInterfaceProtocol,
                    endpoints: endpoints))
        }
        return result
    }

    /// A string descriptor in ASCII (libusb replaces other characters with `?`), nil when the
    /// device has none at `index` or does not answer.
    static func string(_ handle: OpaquePointer, index: UInt8) -> String? {
        guard index != 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = libusb_get_string_descriptor_ascii(handle, index, &buffer, Int32(buffer.count))
        guard length > 0 else { return nil }
        let text = String(decoding: buffer.prefix(Int(length)), as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }
}
