import Drivers
import Foundation
import Transport
import TransportReplay

/// The device's side of USB Mass Storage Bulk-Only Transport over a ``VerioMeter``'s disk: it
/// takes what the host writes to bulk OUT and gives what the host is to read from bulk IN,
/// transfer by transfer. It answers the commands a Linux host sends a removable disk (INQUIRY,
/// TEST UNIT READY, READ CAPACITY(10), REQUEST SENSE, MODE SENSE(6), READ(10), WRITE(10) and
/// PREVENT ALLOW MEDIUM REMOVAL); any other fails with ILLEGAL REQUEST sense data.
package final class BulkOnlyServer: @unchecked Sendable {
    package let disk: VerioMeter
    /// The INQUIRY product field.
    package var product = "Verio"
    /// The transfers the host is to read, in order.
    package private(set) var outbox: [[UInt8]] = []
    /// SCSI commands taken, by opcode, in order.
    package private(set) var opcodes: [UInt8] = []
    private var pendingWrite: (wrapper: BulkOnly.CommandWrapper, lba: UInt32, blocks: Int, data: [UInt8])?
    /// Sense key, additional sense code of the last failure.
    private var sense: (key: UInt8, code: UInt8) = (0, 0)

    package init(disk: VerioMeter) { self.disk = disk }

    /// How many bytes of a WRITE(10)'s data are still to come, when one is pending.
    package var pendingOutLength: Int? { pendingWrite.map { $0.blocks * SCSICommand.blockSize - $0.data.count } }

    /// The next transfer for the host, if any.
    package func next() -> [UInt8]? { outbox.isEmpty ? nil : outbox.removeFirst() }

    /// Takes one bulk OUT transfer.
    package func receive(_ bytes: [UInt8]) {
        if var write = pendingWrite {
            write.data += bytes
            guard write.data.count >= write.blocks * SCSICommand.blockSize else {
                pendingWrite = write
                return
            }
            pendingWrite = nil
            for i in 0..<write.blocks {
                let start = i * SCSICommand.blockSize
                disk.write(write.lba + UInt32(i), Array(write.data[start..<start + SCSICommand.blockSize]))
            }
            status(write.wrapper, passed: true)
            return
        }
        guard let wrapper = BulkOnly.CommandWrapper(bytes) else { return }
        take(wrapper)
    }

    private func status(_ wrapper: BulkOnly.CommandWrapper, passed: Bool, residue: UInt32 = 0) {
        if passed { sense = (0, 0) }
        outbox.append(BulkOnly.StatusWrapper(tag: wrapper.tag, residue: residue, status: passed ? 0 : 1).bytes)
    }

    private func dataIn(_ wrapper: BulkOnly.CommandWrapper, _ data: [UInt8]) {
        let length = min(Int(wrapper.dataLength), data.count)
        outbox.append(Array(data.prefix(length)))
        status(wrapper, passed: true, residue: wrapper.dataLength - UInt32(length))
    }

    private func take(_ wrapper: BulkOnly.CommandWrapper) {
        let cdb = wrapper.command
        opcodes.append(cdb[0])
        switch cdb[0] {
        case 0x00, 0x1E:  // TEST UNIT READY, PREVENT ALLOW MEDIUM REMOVAL
            status(wrapper, passed: true)
        case SCSICommand.inquiryOpcode:
            var data = disk.inquiry
            data.replaceSubrange(16..<32, with: Array((product + String(repeating: " ", count: 16)).utf8.prefix(16)))
            dataIn(wrapper, data)
        case 0x03:  // REQUEST SENSE, fixed format
            var data = [UInt8](repeating: 0, count: 18)
            data[0] = 0x70
            data[2] = sense.key
            data[7] = 10
            data[12] = sense.code
            dataIn(wrapper, data)
        case 0x1A:  // MODE SENSE(6): a header, not write-protected
            dataIn(wrapper, [3, 0, 0, 0])
        case 0x25:  // READ CAPACITY(10)
            let last = disk.blockCount - 1
            dataIn(wrapper, [UInt8(last >> 24), UInt8(last >> 16 & 0xFF), UInt8(last >> 8 & 0xFF), UInt8(last & 0xFF), 0, 0, 2, 0])
        case SCSICommand.read10Opcode:
            let lba = SCSICommand.lba(of: cdb) ?? 0
            let blocks = Int(cdb[7]) << 8 | Int(cdb[8])
            dataIn(wrapper, (0..<blocks).flatMap { disk.read(lba + UInt32($0)) })
        case SCSICommand.write10Opcode:
            let blocks = Int(cdb[7]) << 8 | Int(cdb[8])
            guard blocks > 0 else { return status(wrapper, passed: true) }
            pendingWrite = (wrapper, SCSICommand.lba(of: cdb) ?? 0, blocks, [])
        default:
            sense = (0x05, 0x20)  // ILLEGAL REQUEST, INVALID COMMAND OPERATION CODE
            if wrapper.dataIn, wrapper.dataLength > 0 {
                outbox.append([UInt8](repeating: 0, count: Int(wrapper.dataLength)))
            }
            status(wrapper, passed: false, residue: wrapper.dataLength)
        }
    }
}

/// A OneTouch Verio on a simulated bus: one mass-storage interface (class 0x08, SCSI, BOT)
/// with bulk endpoints 0x81 IN and 0x02 OUT, serving a ``VerioMeter``.
public final class VerioMeterSimulator: USBTransport {
    public let device: USBDeviceDescription
    package let server: BulkOnlyServer
    package var meter: VerioMeter { server.disk }
    /// The host's clock, read when bytes are delivered.
    package var hostClock: () -> Date
    /// After this many bulk transfers the meter sends nothing more: reads time out.
    package var silentAfterTransfers: Int?
    /// After this many bulk transfers the meter is gone.
    package var unplugAfterTransfers: Int?
    private var transfers = 0

    public init(meter: VerioMeter, productID: UInt16 = 0x0000, hostClock: @escaping () -> Date) {
        device = USBDeviceDescription(
            vendorID: 0x2766, productID: productID, bus: 2, address: 11, manufacturer: "LifeScan", product: meter.model,
            serialNumber: meter.serial,
            interfaces: [
                USBInterface(
                    number: 0, interfaceClass: BulkOnly.interfaceClass, interfaceSubclass: BulkOnly.interfaceSubclass,
                    interfaceProtocol: BulkOnly.interfaceProtocol,
                    endpoints: [
                        USBEndpoint(address: 0x81, type: .bulk, maxPacketSize: 512),
                        USBEndpoint(address: 0x02, type: .bulk, maxPacketSize: 512),
                    ])
            ])
        server = BulkOnlyServer(disk: meter)
        self.hostClock = hostClock
    }

    public func claimInterface(_ number: UInt8) throws(TransportError) {
        guard number == 0 else { throw .claimFailed(interface: number, reason: "the simulated meter has only interface 0") }
    }

    public func control(_ setup: USBControlSetup, data: [UInt8], timeout: Duration) throws(TransportError) -> USBRead {
        throw .transferFailed(endpoint: 0, reason: "the simulated meter answers no control request")
    }

    private func count() throws(TransportError) {
        transfers += 1
        if let limit = unplugAfterTransfers, transfers > limit { throw .disconnected("simulated Verio unplugged") }
    }

    public func write(_ bytes: [UInt8], to endpoint: USBEndpoint, timeout: Duration) throws(TransportError) {
        guard endpoint.address == 0x02 else { throw .transferFailed(endpoint: endpoint.address, reason: "not the bulk OUT endpoint") }
        try count()
        if let limit = silentAfterTransfers, transfers > limit { return }
        server.receive(bytes)
    }

    public func read(from endpoint: USBEndpoint, maxLength: Int, timeout: Duration) throws(TransportError) -> USBRead {
        guard endpoint.address == 0x81 else { throw .transferFailed(endpoint: endpoint.address, reason: "not the bulk IN endpoint") }
        try count()
        if let limit = silentAfterTransfers, transfers > limit { throw .timeout(endpoint: endpoint.address) }
        guard let bytes = server.next() else { throw .timeout(endpoint: endpoint.address) }
        return USBRead(bytes: Array(bytes.prefix(maxLength)), hostTime: hostClock())
    }

    public func close() {}

    /// Records a session with `meter` to `output` as a usbmon pcap, as `glucobridge import
    /// --record` does.
    public static func record(_ meter: VerioMeterSimulator, to output: URL) throws {
        let recorder = try RecordingUSBTransport(recording: meter, to: output, clock: meter.hostClock)
        _ = try VerioDriver.download(over: recorder, context: .fresh)
        try recorder.finish()
    }
}
