import CLibUSB
import Foundation
import Transport

/// A USB device opened through libusb: the transport drivers use against real hardware.
///
/// On a real machine the device node (`/dev/bus/usb/BBB/DDD`) must be writable by this user —
/// the glucobridge udev rules grant that to `plugdev`. Claiming an interface unbinds the kernel
/// driver that holds it (`cdc_acm` for a Dexcom receiver, `usbhid` for HID meters); `close()`
/// releases every claimed interface and binds those drivers again, so `/dev/ttyACM*` or the
/// hidraw node comes back once glucobridge is done. `close()` runs from `deinit` too, so the
/// device is handed back on every exit path, errors included.
///
/// Transfers are synchronous (`libusb_bulk_transfer`, `libusb_interrupt_transfer`,
/// `libusb_control_transfer`) and, as `USBTransport` requires, made from one thread at a time.
package final class LibUSBTransport: USBTransport {
    package let device: USBDeviceDescription
    /// Kept so that `libusb_exit` cannot run while this device is open.
    private let context: LibUSBContext
    /// nil once closed.
    private var handle: OpaquePointer?
    /// Interfaces claimed, in claim order.
    private var claimed: [UInt8] = []
    /// Interfaces whose kernel driver this transport detached.
    private var detached: Set<UInt8> = []
    /// Interfaces that had a kernel driver bound before the first claim. Detaching one interface
    /// can unbind a driver from its sibling too (`cdc_acm` holds both the control and the data
    /// interface), so `close()` re-binds from this snapshot, not only from `detached`.
    private var boundBeforeClaim: Set<UInt8>?

    /// Opens the first device with this vendor and product ID. Throws `.noDevice` when none is
    /// connected, `.openFailed` when it cannot be opened (with a fix for permission problems).
    package convenience init(context: LibUSBContext, vendorID: UInt16, productID: UInt16) throws(TransportError) {
        try self.init(context: context) { descriptor, _ in
            descriptor.idVendor == vendorID && descriptor.idProduct == productID
        }
    }

    /// Opens the device at this bus number and address (as `lsusb` shows them). Throws
    /// `.noDevice` when nothing is there.
    package convenience init(context: LibUSBContext, bus: UInt16, address: UInt8) throws(TransportError) {
        try self.init(context: context) { _, device in
            UInt16(libusb_get_bus_number(device)) == bus && libusb_get_device_address(device) == address
        }
    }

    private init(
        context: LibUSBContext, matching isMatch: (libusb_device_descriptor, OpaquePointer) -> Bool
    ) throws(TransportError) {
        let (handle, device) = try context.withDeviceList { list throws(TransportError) -> (OpaquePointer, USBDeviceDescription) in
            guard let match = list.lazy.compactMap({ $0 }).first(where: { isMatch(LibUSBContext.deviceDescriptor($0), $0) }) else {
                throw .noDevice
            }
            var handle: OpaquePointer?
            let rc = libusb_open(match, &handle)
            guard rc == LibUSB.success, let handle else {
                let name = LibUSBContext.describe(match, handle: nil).locationName
                throw LibUSB.openError(rc, device: name)
            }
            return (handle, LibUSBContext.describe(match, handle: handle))
        }
        self.context = context
        self.handle = handle
        self.device = device
    }

    deinit {
        close()
    }

    /// Claims interface `number`, first detaching the kernel driver bound to it (remembered, and
    /// re-attached on `close`). Claiming an interface already claimed here does nothing.
    package func claimInterface(_ number: UInt8) throws(TransportError) {
        guard let handle else { throw .claimFailed(interface: number, reason: "the device is closed") }
        if claimed.contains(number) { return }
        if boundBeforeClaim == nil {
            boundBeforeClaim = Set(device.interfaces.map(\.number).filter { libusb_kernel_driver_active(handle, Int32($0)) == 1 })
        }

        var detachedNow = false
        let active = libusb_kernel_driver_active(handle, Int32(number))
        if active == 1 {
            let rc = libusb_detach_kernel_driver(handle, Int32(number))
            switch rc {
            case LibUSB.success:
                detached.insert(number)
                detachedNow = true
            case LibUSB.errorNotFound:
                break  // The driver let go in the meantime.
            default:
                throw LibUSB.detachError(rc, interface: number, device: device.locationName)
            }
        } else if active == LibUSB.errorNoDevice {
            throw .disconnected(device.locationName)
        }

        let rc = libusb_claim_interface(handle, Int32(number))
        guard rc == LibUSB.success else {
            if detachedNow, libusb_attach_kernel_driver(handle, Int32(number)) == LibUSB.success {
                detached.remove(number)
            }
            throw LibUSB.claimError(rc, interface: number, device: device.locationName)
        }
        claimed.append(number)
    }

    /// Sends `bytes` to a bulk or interrupt OUT endpoint; anything less than all of them arriving
    /// (a short write) is an error.
    package func write(_ bytes: [UInt8], to endpoint: USBEndpoint, timeout: Duration) throws(TransportError) {
        guard endpoint.direction == .out else {
            throw .transferFailed(endpoint: endpoint.address, reason: "it is an IN endpoint; cannot write to it")
        }
        guard let length = Int32(exactly: bytes.count) else {
            throw .transferFailed(endpoint: endpoint.address, reason: "\(bytes.count) bytes is too much for one transfer")
        }
        var buffer = bytes
        let (rc, sent) = try transfer(endpoint, &buffer, length: length, timeout: timeout)
        guard rc == LibUSB.success else {
            throw LibUSB.transferError(rc, endpoint: endpoint.address, device: device.locationName)
        }
        guard sent == length else {
            throw .transferFailed(endpoint: endpoint.address, reason: "short write: \(sent) of \(length) bytes sent")
        }
    }

    /// Receives at most `maxLength` bytes from a bulk or interrupt IN endpoint, stamped with the
    /// host clock when the transfer completed. Bytes that arrived before a timeout are returned
    /// rather than dropped (the device has already sent them); a timeout with nothing received
    /// throws `.timeout`.
    package func read(from endpoint: USBEndpoint, maxLength: Int, timeout: Duration) throws(TransportError) -> USBRead {
        guard endpoint.direction == .in else {
            throw .transferFailed(endpoint: endpoint.address, reason: "it is an OUT endpoint; cannot read from it")
        }
        guard maxLength >= 0, let length = Int32(exactly: maxLength) else {
            throw .transferFailed(endpoint: endpoint.address, reason: "cannot read \(maxLength) bytes in one transfer")
        }
        var buffer = [UInt8](repeating: 0, count: maxLength)
        let (rc, received) = try transfer(endpoint, &buffer, length: length, timeout: timeout)
        let completed = Date()
        guard rc == LibUSB.success || (rc == LibUSB.errorTimeout && received > 0) else {
            throw LibUSB.transferError(rc, endpoint: endpoint.address, device: device.locationName)
        }
        return USBRead(bytes: Array(buffer.prefix(Int(received))), hostTime: completed)
    }

    /// Performs a control transfer on endpoint 0. For an IN request up to `setup.length` bytes
    /// come back; for an OUT request `data` is sent and its length is used as `wLength`. Errors
    /// name endpoint 0x80 (IN) or 0x00 (OUT), as usbmon does.
    package func control(_ setup: USBControlSetup, data: [UInt8], timeout: Duration) throws(TransportError) -> USBRead {
        let endpoint: UInt8 = setup.direction == .in ? 0x80 : 0x00
        let handle = try openHandle(endpoint: endpoint)
        var buffer: [UInt8]
        if setup.direction == .in {
            buffer = [UInt8](repeating: 0, count: Int(setup.length))
        } else {
            guard data.count <= Int(UInt16.max) else {
                throw .transferFailed(endpoint: endpoint, reason: "\(data.count) bytes is too much for one control transfer")
            }
            buffer = data
        }
        let wLength = UInt16(buffer.count)
        let rc = buffer.withUnsafeMutableBufferPointer {
            libusb_control_transfer(
                handle, setup.requestType, setup.request, setup.value, setup.index, $0.baseAddress, wLength,
                LibUSB.milliseconds(timeout))
        }
        let completed = Date()
        guard rc >= 0 else {
            throw LibUSB.transferError(rc, endpoint: endpoint, device: device.locationName)
        }
        if setup.direction == .in {
            return USBRead(bytes: Array(buffer.prefix(Int(rc))), hostTime: completed)
        }
        guard Int(rc) == data.count else {
            throw .transferFailed(endpoint: endpoint, reason: "short write: \(rc) of \(data.count) bytes sent")
        }
        return USBRead(bytes: [], hostTime: completed)
    }

    /// Releases every claimed interface, re-binds every kernel driver this transport unbound, and
    /// closes the device. Safe to call more than once, and after the device was unplugged.
    package func close() {
        guard let handle else { return }
        self.handle = nil
        for number in claimed.reversed() {
            _ = libusb_release_interface(handle, Int32(number))
        }
        claimed = []
        if !detached.isEmpty {
            for number in detached.union(boundBeforeClaim ?? []).sorted()
            where libusb_kernel_driver_active(handle, Int32(number)) == 0 {
                _ = libusb_attach_kernel_driver(handle, Int32(number))
            }
        }
        detached = []
        libusb_close(handle)
    }

    private func openHandle(endpoint: UInt8) throws(TransportError) -> OpaquePointer {
        guard let handle else { throw .transferFailed(endpoint: endpoint, reason: "the device is closed") }
        return handle
    }

    /// One synchronous bulk or interrupt transfer; returns libusb's code and the bytes moved.
    private func transfer(
        _ endpoint: USBEndpoint, _ buffer: inout [UInt8], length: Int32, timeout: Duration
    ) throws(TransportError) -> (code: Int32, transferred: Int32) {
        let handle = try openHandle(endpoint: endpoint.address)
        let milliseconds = LibUSB.milliseconds(timeout)
        var transferred: Int32 = 0
        let code: Int32
        switch endpoint.type {
        case .bulk:
            code = buffer.withUnsafeMutableBufferPointer {
                libusb_bulk_transfer(handle, endpoint.address, $0.baseAddress, length, &transferred, milliseconds)
            }
        case .interrupt:
            code = buffer.withUnsafeMutableBufferPointer {
                libusb_interrupt_transfer(handle, endpoint.address, $0.baseAddress, length, &transferred, milliseconds)
            }
        case .control, .isochronous:
            throw .transferFailed(
                endpoint: endpoint.address, reason: "\(endpoint.type) endpoints are not supported here (bulk or interrupt only)")
        }
        // A transfer in flight when the reader is unplugged can end as an I/O error before the
        // kernel has finished removing the device: ask the device whether it is still there.
        if code == LibUSB.errorIO, isGone(handle) { return (LibUSB.errorNoDevice, transferred) }
        return (code, transferred)
    }

    /// Whether the device has left: a GET_STATUS request on endpoint 0 answers "no device". An
    /// answer means it is there; other failures are asked again, a few times, 50 ms apart, while
    /// the kernel may still be removing it.
    private func isGone(_ handle: OpaquePointer) -> Bool {
        var status = [UInt8](repeating: 0, count: 2)
        for _ in 0..<10 {
            let rc = libusb_control_transfer(handle, 0x80, 0x00, 0, 0, &status, 2, 100)
            if rc == LibUSB.errorNoDevice { return true }
            if rc >= 0 { return false }
            usleep(50_000)
        }
        return false
    }
}
