import Foundation

/// USB Mass Storage Bulk-Only Transport (USB-IF "Mass Storage Class Bulk-Only Transport" 1.0):
/// each command a 31-byte Command Block Wrapper on bulk OUT, its data on bulk OUT or IN, then a
/// 13-byte Command Status Wrapper on bulk IN.
package enum BulkOnly {
    /// `USBC`, little-endian.
    package static let commandSignature: UInt32 = 0x4342_5355
    /// `USBS`, little-endian.
    package static let statusSignature: UInt32 = 0x5342_5355
    package static let commandWrapperLength = 31
    package static let statusWrapperLength = 13
    /// Interface class 0x08 (mass storage), subclass 0x06 (SCSI transparent), protocol 0x50 (BOT).
    package static let interfaceClass: UInt8 = 0x08
    package static let interfaceSubclass: UInt8 = 0x06
    package static let interfaceProtocol: UInt8 = 0x50

    /// A Command Block Wrapper.
    package struct CommandWrapper: Equatable, Sendable {
        package var tag: UInt32
        package var dataLength: UInt32
        package var dataIn: Bool
        package var lun: UInt8
        package var command: [UInt8]

        package init(tag: UInt32, dataLength: UInt32, dataIn: Bool, lun: UInt8 = 0, command: [UInt8]) {
            self.tag = tag
            self.dataLength = dataLength
            self.dataIn = dataIn
            self.lun = lun
            self.command = command
        }

        package init?(_ bytes: [UInt8]) {
            guard bytes.count == commandWrapperLength, le32(bytes, 0) == commandSignature else { return nil }
            let length = Int(bytes[14] & 0x1F)
            guard (1...16).contains(length) else { return nil }
            tag = le32(bytes, 4)
            dataLength = le32(bytes, 8)
            dataIn = bytes[12] & 0x80 != 0
            lun = bytes[13] & 0x0F
            command = Array(bytes[15..<15 + length])
        }

        package var bytes: [UInt8] {
            var out = bytesOf(commandSignature) + bytesOf(tag) + bytesOf(dataLength)
            out += [dataIn ? 0x80 : 0x00, lun, UInt8(command.count)]
            out += command + [UInt8](repeating: 0, count: 16 - command.count)
            return out
        }
    }

    /// A Command Status Wrapper.
    package struct StatusWrapper: Equatable, Sendable {
        package var tag: UInt32
        package var residue: UInt32
        /// 0 passed, 1 failed, 2 phase error.
        package var status: UInt8

        package init(tag: UInt32, residue: UInt32, status: UInt8) {
            self.tag = tag
            self.residue = residue
            self.status = status
        }

        package init?(_ bytes: [UInt8]) {
            guard bytes.count == statusWrapperLength, le32(bytes, 0) == statusSignature else { return nil }
            tag = le32(bytes, 4)
            residue = le32(bytes, 8)
            status = bytes[12]
        }

        package var bytes: [UInt8] { bytesOf(statusSignature) + bytesOf(tag) + bytesOf(residue) + [status] }
    }

    static func le32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }

    static func bytesOf(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }

    /// One SCSI command a recording holds: its wrapper, the data that moved and its status.
    package struct RecordedCommand: Sendable {
        package var wrapper: CommandWrapper
        package var data: [UInt8]
        package var status: StatusWrapper?
        /// The recording's packet that carried the data (else the wrapper), for messages.
        package var packetNumber: Int
        package var hostTime: Date?
    }

    /// The commands a recorded device's bulk transfers hold, in order: every wrapper with the
    /// data after it and its status. Transfers that are not part of a command are skipped.
    package static func commands(in transfers: [USBTransfer]) -> [RecordedCommand] {
        var commands: [RecordedCommand] = []
        var current: RecordedCommand?
        for transfer in transfers where transfer.type == .bulk && transfer.status == 0 {
            if transfer.direction == .out, let wrapper = CommandWrapper(transfer.data) {
                if let open = current { commands.append(open) }
                current = RecordedCommand(wrapper: wrapper, data: [], status: nil, packetNumber: transfer.packetNumber, hostTime: transfer.timestamp)
                continue
            }
            guard var open = current else { continue }
            if transfer.direction == .in, let status = StatusWrapper(transfer.data), status.tag == open.wrapper.tag {
                open.status = status
                commands.append(open)
                current = nil
                continue
            }
            if open.wrapper.dataIn == (transfer.direction == .in) {
                open.data += transfer.data
                open.packetNumber = transfer.packetNumber
                open.hostTime = transfer.timestamp ?? open.hostTime
            }
            current = open
        }
        if let open = current { commands.append(open) }
        return commands
    }
}

/// A disk reached through a USB transport's mass-storage interface by Bulk-Only Transport: how
/// a simulated disk and a replayed capture serve a driver that speaks SCSI. The tags count from 1,
/// so that the same conversation sends the same bytes.
package final class BulkOnlyDisk: SCSIDisk {
    package let transport: any USBTransport
    package let inEndpoint: USBEndpoint
    package let outEndpoint: USBEndpoint
    package var timeout: Duration
    private var tag: UInt32 = 0

    package var name: String { transport.device.idString }
    package var usbDevice: USBDeviceDescription? { transport.device }

    /// The device's first mass-storage interface with a bulk pair, claimed.
    package init(transport: any USBTransport, timeout: Duration = .seconds(5)) throws(TransportError) {
        self.transport = transport
        self.timeout = timeout
        let interfaces = transport.device.interfaces
        let candidates = interfaces.filter { $0.interfaceClass == BulkOnly.interfaceClass } + interfaces
        for interface in candidates {
            let bulk = interface.endpoints.filter { $0.type == .bulk }
            if let inward = bulk.first(where: { $0.direction == .in }), let out = bulk.first(where: { $0.direction == .out }) {
                inEndpoint = inward
                outEndpoint = out
                try transport.claimInterface(interface.number)
                return
            }
        }
        throw .openFailed(device: transport.device.idString, reason: "no mass-storage interface with a bulk IN and OUT endpoint")
    }

    package func inquiry() throws(TransportError) -> [UInt8] {
        try command(SCSICommand.inquiry, dataIn: SCSICommand.inquiryLength, dataOut: nil).bytes
    }

    package func readBlock(_ lba: UInt32) throws(TransportError) -> USBRead {
        try command(SCSICommand.read10(lba), dataIn: SCSICommand.blockSize, dataOut: nil)
    }

    package func writeBlock(_ lba: UInt32, _ bytes: [UInt8]) throws(TransportError) {
        var block = Array(bytes.prefix(SCSICommand.blockSize))
        block += [UInt8](repeating: 0, count: SCSICommand.blockSize - block.count)
        _ = try command(SCSICommand.write10(lba), dataIn: nil, dataOut: block)
    }

    package func close() { transport.close() }

    /// Sends one wrapped command, moves its data and checks its status.
    private func command(_ cdb: [UInt8], dataIn: Int?, dataOut: [UInt8]?) throws(TransportError) -> USBRead {
        tag &+= 1
        let wrapper = BulkOnly.CommandWrapper(
            tag: tag, dataLength: UInt32(dataIn ?? dataOut?.count ?? 0), dataIn: dataIn != nil, command: cdb)
        try transport.write(wrapper.bytes, to: outEndpoint, timeout: timeout)
        if let dataOut { try transport.write(dataOut, to: outEndpoint, timeout: timeout) }
        var data = USBRead(bytes: [], hostTime: nil)
        if let dataIn {
            data = try transport.read(from: inEndpoint, maxLength: dataIn, timeout: timeout)
            if let status = BulkOnly.StatusWrapper(data.bytes), status.tag == tag {
                throw .transferFailed(
                    endpoint: inEndpoint.address, reason: "SCSI command \(Hex.encode(cdb)) ended with status \(status.status) and no data")
            }
        }
        let statusRead = try transport.read(from: inEndpoint, maxLength: BulkOnly.statusWrapperLength, timeout: timeout)
        guard let status = BulkOnly.StatusWrapper(statusRead.bytes), status.tag == tag else {
            throw .transferFailed(
                endpoint: inEndpoint.address,
                reason:
                    "no command status wrapper for tag \(tag) after SCSI command \(Hex.encode(cdb)): \(Hex.encode(Array(statusRead.bytes.prefix(16))))"
            )
        }
        guard status.status == 0 else {
            throw .transferFailed(endpoint: inEndpoint.address, reason: "SCSI command \(Hex.encode(cdb)) failed with status \(status.status)")
        }
        return data
    }
}
