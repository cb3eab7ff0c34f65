import Foundation
import Transport

/// A USB disk the kernel's usb-storage driver owns, as a driver that speaks Bulk-Only Transport
/// sees it: each Command Block Wrapper written to the bulk OUT endpoint is run on the disk's SCSI
/// node with SG_IO, and its data and Command Status Wrapper are read from bulk IN. The kernel
/// itself carries the commands over the bus, so the device stays bound to usb-storage; a
/// recording of this transport has the shape usbmon shows of the kernel's own traffic.
package final class SGIOUSBTransport: USBTransport {
    package let device: USBDeviceDescription
    package let disk: SGIODevice
    private var pendingWrite: BulkOnly.CommandWrapper?
    private var outbox: [[UInt8]] = []

    /// The disk of `device` (found through sysfs from its bus and address).
    package init(device: USBDeviceDescription, disk: KernelDisk) throws(TransportError) {
        guard let node = disk.node else {
            throw .openFailed(device: device.idString, reason: "the kernel made no SCSI disk for it")
        }
        self.device = device
        self.disk = try SGIODevice(path: node)
    }

    package func claimInterface(_ number: UInt8) throws(TransportError) {}

    package func control(_ setup: USBControlSetup, data: [UInt8], timeout: Duration) throws(TransportError) -> USBRead {
        throw .transferFailed(endpoint: 0, reason: "\(disk.path) takes SCSI commands only")
    }

    package func write(_ bytes: [UInt8], to endpoint: USBEndpoint, timeout: Duration) throws(TransportError) {
        if let wrapper = pendingWrite {
            pendingWrite = nil
            return try run(wrapper, dataOut: bytes, timeout: timeout)
        }
        guard let wrapper = BulkOnly.CommandWrapper(bytes) else {
            throw .transferFailed(endpoint: endpoint.address, reason: "\(bytes.count) bytes that are not a Command Block Wrapper")
        }
        if !wrapper.dataIn, wrapper.dataLength > 0 {
            pendingWrite = wrapper
            return
        }
        try run(wrapper, dataOut: [], timeout: timeout)
    }

    package func read(from endpoint: USBEndpoint, maxLength: Int, timeout: Duration) throws(TransportError) -> USBRead {
        guard !outbox.isEmpty else { throw .timeout(endpoint: endpoint.address) }
        return USBRead(bytes: Array(outbox.removeFirst().prefix(maxLength)), hostTime: Date())
    }

    package func close() { disk.close() }

    private func run(_ wrapper: BulkOnly.CommandWrapper, dataOut: [UInt8], timeout: Duration) throws(TransportError) {
        disk.timeout = timeout
        let answer: (data: [UInt8], status: UInt8, sense: [UInt8])
        do {
            answer = try disk.execute(wrapper.command, dataIn: wrapper.dataIn ? Int(wrapper.dataLength) : 0, dataOut: dataOut)
        } catch .disconnected(let reason) {
            // Named as libusb's transport names a device that left: ids and bus location.
            throw .disconnected("\(device.idString) on bus \(device.bus) address \(device.address): \(reason)")
        }
        if wrapper.dataIn { outbox.append(answer.data) }
        let moved = wrapper.dataIn ? answer.data.count : dataOut.count
        outbox.append(
            BulkOnly.StatusWrapper(
                tag: wrapper.tag, residue: wrapper.dataLength - UInt32(min(moved, Int(wrapper.dataLength))), status: answer.status == 0 ? 0 : 1
            )
            .bytes)
    }
}
