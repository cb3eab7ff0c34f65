import Foundation
import Transport

/// Writes a btsnoop file that `BTSnoopReader` (and Wireshark, `btmon -r`) reads back: datalink
/// 1002 the way Android writes it (H4 byte first; flags 2 command, 3 event, 0/1 data sent/received)
/// or 2001 the way `btmon -w` writes it (no H4 byte; flags = controller index << 16 | opcode).
/// Every `append` goes straight to the operating system.
package final class BTSnoopWriter {
    package let datalink: BTSnoopDatalink
    private let file: CaptureFile

    /// Creates (or empties) the file at `url` and writes the header. Only 1002 and 2001 are written.
    package init(url: URL, datalink: BTSnoopDatalink = .hciUART) throws(BTSnoopError) {
        guard datalink != .hciUnencapsulated else {
            throw .writeFailed(file: url.lastPathComponent, reason: "datalink 1001 is read but not written; use 1002 or 2001")
        }
        self.datalink = datalink
        do {
            file = try CaptureFile(url: url)
        } catch {
            throw Self.converted(error, file: url.lastPathComponent)
        }
        var header = BTSnoopReader.identification
        header.appendBE(1)
        header.appendBE(datalink.rawValue)
        try write(header)
    }

    /// Appends `packet` crossing in `direction` at `time` (to the microsecond). `index` is the
    /// controller index of a monitor file.
    package func append(_ packet: HCIPacket, direction: HCIDirection, at time: Date, index: UInt16 = 0) throws(BTSnoopError) {
        let body: [UInt8]
        let flags: UInt32
        switch datalink {
        case .hciUART, .hciUnencapsulated:
            body = [packet.type.rawValue] + packet.bytes
            switch packet {
            case .command: flags = 2
            case .event: flags = 3
            default: flags = direction == .sent ? 0 : 1
            }
        case .monitor:
            body = packet.bytes
            let sent = direction == .sent
            let opcode: UInt16
            switch packet {
            case .command: opcode = BTSnoopReader.MonitorOpcode.command
            case .event: opcode = BTSnoopReader.MonitorOpcode.event
            case .acl: opcode = sent ? BTSnoopReader.MonitorOpcode.aclSent : BTSnoopReader.MonitorOpcode.aclReceived
            case .sco: opcode = sent ? BTSnoopReader.MonitorOpcode.scoSent : BTSnoopReader.MonitorOpcode.scoReceived
            case .iso: opcode = sent ? BTSnoopReader.MonitorOpcode.isoSent : BTSnoopReader.MonitorOpcode.isoReceived
            }
            flags = UInt32(index) << 16 | UInt32(opcode)
        }
        try writeRecord(body, flags: flags, time: time)
    }

    /// Appends a monitor NEW_INDEX record (2001 only): controller `index` of `type` (0 primary) on
    /// `bus` (1 USB) with its address and name (at most 8 bytes kept).
    package func appendNewIndex(
        index: UInt16, type: UInt8 = 0, bus: UInt8 = 1, address: BluetoothAddress, name: String, at time: Date
    ) throws(BTSnoopError) {
        guard datalink == .monitor else {
            throw .writeFailed(file: file.name, reason: "NEW_INDEX records exist only in monitor (2001) files")
        }
        var body: [UInt8] = [type, bus] + address.littleEndianBytes
        let nameBytes = Array(name.utf8.prefix(8))
        body += nameBytes + [UInt8](repeating: 0, count: 8 - nameBytes.count)
        try writeRecord(body, flags: UInt32(index) << 16 | UInt32(BTSnoopReader.MonitorOpcode.newIndex), time: time)
    }

    /// Flushes the file to storage and closes it.
    package func close() throws(BTSnoopError) {
        do {
            try file.close()
        } catch {
            throw Self.converted(error, file: file.name)
        }
    }

    private func writeRecord(_ body: [UInt8], flags: UInt32, time: Date) throws(BTSnoopError) {
        var record: [UInt8] = []
        record.reserveCapacity(BTSnoopReader.recordHeaderLength + body.count)
        record.appendBE(UInt32(body.count))
        record.appendBE(UInt32(body.count))
        record.appendBE(flags)
        record.appendBE(0)
        let stamp = BTSnoopTimestamp(time).raw
        record.appendBE(UInt32(stamp >> 32))
        record.appendBE(UInt32(stamp & 0xFFFF_FFFF))
        try write(record + body)
    }

    private func write(_ bytes: [UInt8]) throws(BTSnoopError) {
        do {
            try file.write(bytes)
        } catch {
            throw Self.converted(error, file: file.name)
        }
    }

    private static func converted(_ error: FileWriteFailure, file: String) -> BTSnoopError {
        .writeFailed(file: file, reason: error.reason)
    }
}

extension Array where Element == UInt8 {
    mutating func appendBE(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}
