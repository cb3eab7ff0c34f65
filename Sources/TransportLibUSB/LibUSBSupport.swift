import CLibUSB
import Transport

/// Pure conversions between libusb's C world and the transport's Swift types: error codes,
/// timeouts and descriptor fields. Kept free of device state so they can be tested on a machine
/// without a USB bus.
package enum LibUSB {
    /// The libusb return codes the transport distinguishes (`enum libusb_error`).
    static let success = Int32(LIBUSB_SUCCESS.rawValue)
    static let errorAccess = Int32(LIBUSB_ERROR_ACCESS.rawValue)
    static let errorNoDevice = Int32(LIBUSB_ERROR_NO_DEVICE.rawValue)
    static let errorNotFound = Int32(LIBUSB_ERROR_NOT_FOUND.rawValue)
    static let errorBusy = Int32(LIBUSB_ERROR_BUSY.rawValue)
    static let errorTimeout = Int32(LIBUSB_ERROR_TIMEOUT.rawValue)
    static let errorOverflow = Int32(LIBUSB_ERROR_OVERFLOW.rawValue)
    static let errorPipe = Int32(LIBUSB_ERROR_PIPE.rawValue)
    static let errorIO = Int32(LIBUSB_ERROR_IO.rawValue)
    static let errorNotSupported = Int32(LIBUSB_ERROR_NOT_SUPPORTED.rawValue)

    /// The hint given when the OS refuses to open a device node (LIBUSB_ERROR_ACCESS).
    package static let accessHint = "no permission: install the glucobridge udev rules or run as a member of plugdev"

    /// libusb's symbolic name for a return code, e.g. `LIBUSB_ERROR_TIMEOUT`.
    package static func errorName(_ code: Int32) -> String {
        String(cString: libusb_error_name(code))
    }

    /// `LIBUSB_ERROR_ACCESS: Access denied (insufficient permissions)`: libusb's name and its
    /// English description of a return code.
    package static func describe(_ code: Int32) -> String {
        "\(errorName(code)): \(String(cString: libusb_strerror(code)))"
    }

    /// The transport error for a failed bulk, interrupt or control transfer on `endpoint` of the
    /// device described by `device` (used to say which device went away).
    package static func transferError(_ code: Int32, endpoint: UInt8, device: String) -> TransportError {
        switch code {
        case errorTimeout: .timeout(endpoint: endpoint)
        case errorNoDevice: .disconnected(device)
        case errorPipe: .transferFailed(endpoint: endpoint, reason: "endpoint stalled")
        case errorOverflow:
            .transferFailed(endpoint: endpoint, reason: "\(errorName(code)): the device sent more data than was asked for")
        default: .transferFailed(endpoint: endpoint, reason: errorName(code))
        }
    }

    /// The transport error for a failed `libusb_open` of `device` (`22a3:0047 on bus 1 address 5`).
    package static func openError(_ code: Int32, device: String) -> TransportError {
        switch code {
        case errorAccess: .openFailed(device: device, reason: "\(accessHint) (\(errorName(code)))")
        case errorBusy: .openFailed(device: device, reason: "another program holds the device (\(errorName(code)))")
        case errorNoDevice: .disconnected(device)
        default: .openFailed(device: device, reason: describe(code))
        }
    }

    /// The transport error for a failed kernel-driver detach or interface claim.
    package static func claimError(_ code: Int32, interface: UInt8, device: String) -> TransportError {
        switch code {
        case errorBusy:
            .claimFailed(
                interface: interface,
                reason: "another program holds it (\(errorName(code))); close other software using the device")
        case errorAccess: .claimFailed(interface: interface, reason: "\(accessHint) (\(errorName(code)))")
        case errorNoDevice: .disconnected(device)
        case errorNotFound: .claimFailed(interface: interface, reason: "the device has no such interface (\(errorName(code)))")
        default: .claimFailed(interface: interface, reason: describe(code))
        }
    }

    /// The transport error for a failed `libusb_detach_kernel_driver` before a claim.
    package static func detachError(_ code: Int32, interface: UInt8, device: String) -> TransportError {
        switch code {
        case errorAccess: .claimFailed(interface: interface, reason: "\(accessHint) (\(errorName(code)))")
        case errorNoDevice: .disconnected(device)
        default: .claimFailed(interface: interface, reason: "cannot detach the kernel driver: \(describe(code))")
        }
    }

    /// A timeout for libusb's synchronous calls, in milliseconds.
    ///
    /// libusb treats 0 as "wait forever", so a zero, negative or sub-millisecond `Duration` is
    /// rounded up to 1 ms rather than turned into an unbounded wait; fractions of a millisecond
    /// round up; anything beyond `UInt32.max` ms (about 49 days) is clamped to it.
    package static func milliseconds(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, duration > .zero else { return 1 }
        let limit = Int64(UInt32.max)
        if seconds >= limit / 1000 + 1 { return UInt32.max }
        let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
        let fraction = (attoseconds + attosecondsPerMillisecond - 1) / attosecondsPerMillisecond
        let total = seconds * 1000 + fraction
        return UInt32(min(max(total, 1), limit))
    }

    /// The payload size of one packet, from an endpoint descriptor's `wMaxPacketSize` (bits 0–10;
    /// bits 11–12 count extra transactions per microframe on high-speed endpoints).
    package static func maxPacketSize(wMaxPacketSize: UInt16) -> Int {
        Int(wMaxPacketSize & 0x07FF)
    }

    /// How a device is named in messages: `22a3:0047 on bus 1 address 5`.
    package static func deviceName(vendorID: UInt16, productID: UInt16, bus: UInt16, address: UInt8) -> String {
        "\(USBDeviceDescription(vendorID: vendorID, productID: productID).idString) on bus \(bus) address \(address)"
    }
}

extension USBDeviceDescription {
    /// `22a3:0047 on bus 1 address 5`.
    var locationName: String {
        LibUSB.deviceName(vendorID: vendorID, productID: productID, bus: bus, address: address)
    }
}
