import Foundation
import Transport

/// The datalink types this reader decodes [fte.com "BTSnoop File Format"; BlueZ src/shared/btsnoop.h].
package enum BTSnoopDatalink: UInt32, Sendable, Equatable {
    /// Un-encapsulated HCI (H1): the packet type comes from the flags.
    case hciUnencapsulated = 1001
    /// HCI UART (H4), as Android's `btsnoop_hci.log`: an H4 indicator byte precedes each packet.
    case hciUART = 1002
    /// BlueZ monitor, as `btmon -w` writes: flags = controller index << 16 | monitor opcode.
    case monitor = 2001
}

/// A btsnoop record timestamp: microseconds since 0000-01-01 (nominal).
package struct BTSnoopTimestamp: Sendable, Equatable, Hashable, Comparable {
    /// The field as stored.
    package var raw: UInt64

    /// The difference between the btsnoop epoch and 1970-01-01 in microseconds [LineageOS
    /// android_system_bt hci/src/btsnoop.cc `BTSNOOP_EPOCH_DELTA`]. BlueZ's writer computes the
    /// same value from a 2000-01-01 base.
    package static let epochDelta: UInt64 = 0x00DC_DDB3_0F2F_8000

    package init(raw: UInt64) {
        self.raw = raw
    }

    /// The timestamp of an instant, to the microsecond.
    package init(_ date: Date) {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        raw = UInt64(bitPattern: micros &+ Int64(bitPattern: Self.epochDelta))
    }

    /// Microseconds since 1970-01-01 UTC.
    package var unixMicroseconds: Int64 { Int64(bitPattern: raw &- Self.epochDelta) }

    /// The instant on the host clock of the machine that made the capture.
    package var date: Date {
        let micros = unixMicroseconds
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        return Date(timeIntervalSince1970: Double(seconds) + Double(micros - seconds * 1_000_000) / 1_000_000)
    }

    package static func < (lhs: BTSnoopTimestamp, rhs: BTSnoopTimestamp) -> Bool { lhs.raw < rhs.raw }
}

/// What a btsnoop record holds, once decoded.
package enum BTSnoopContent: Sendable, Equatable {
    /// An HCI packet and the direction it crossed the interface.
    case hci(HCIPacket, HCIDirection)
    /// A monitor (2001) NEW_INDEX record: a controller appeared under the record's index.
    case newIndex(type: UInt8, bus: UInt8, address: BluetoothAddress, name: String)
    /// A monitor (2001) DEL_INDEX record: the controller at the record's index went away.
    case deleteIndex
    /// A record cut by the capture (included length below original length): not decoded.
    case truncated
    /// A record this reader does not decode (monitor notes, mgmt traffic, unknown H4 types, …).
    case other
}

/// One packet of a btsnoop file (the format calls it a packet record).
public struct BTSnoopPacket: Sendable, Equatable {
    /// 1-based packet number.
    package var number: Int
    /// Byte offset of the packet record header in the file.
    package var offset: Int
    package var originalLength: Int
    package var includedLength: Int
    /// The flags word as stored (its meaning depends on the datalink).
    package var flags: UInt32
    package var cumulativeDrops: UInt32
    package var timestamp: BTSnoopTimestamp
    /// The controller index: the upper 16 bits of the flags in monitor files, else 0.
    package var controllerIndex: UInt16
    /// The packet's bytes as stored (H4 byte included in datalink 1002).
    public var data: [UInt8]
    package var content: BTSnoopContent

    /// The host clock when the packet was captured.
    package var hostTime: Date { timestamp.date }

    /// Whether the capture cut this packet short.
    package var isTruncated: Bool { includedLength < originalLength }

    /// The HCI packet, if this packet holds one.
    package var packet: HCIPacket? {
        if case .hci(let packet, _) = content { return packet }
        return nil
    }

    /// The direction of the HCI packet, if this packet holds one.
    package var direction: HCIDirection? {
        if case .hci(_, let direction) = content { return direction }
        return nil
    }
}

/// A btsnoop capture: its datalink and packets in file order.
public struct BTSnoopFile: Sendable, Equatable {
    /// The file's name, used in error messages.
    package var name: String
    package var datalink: BTSnoopDatalink
    public var packets: [BTSnoopPacket]
}

/// Reads btsnoop files [fte.com "BTSnoop File Format"; BlueZ src/shared/btsnoop.c]: a 16-byte
/// big-endian header ("btsnoop\0", version 1, datalink), then records of a 24-byte big-endian
/// header (original length, included length, flags, cumulative drops, timestamp) and data.
public enum BTSnoopReader {
    package static let identification: [UInt8] = Array("btsnoop".utf8) + [0]
    package static let fileHeaderLength = 16
    package static let recordHeaderLength = 24

    /// Monitor (2001) opcodes [BlueZ src/shared/btsnoop.h `BTSNOOP_OPCODE_*`].
    package enum MonitorOpcode {
        package static let newIndex: UInt16 = 0
        package static let deleteIndex: UInt16 = 1
        package static let command: UInt16 = 2
        package static let event: UInt16 = 3
        package static let aclSent: UInt16 = 4
        package static let aclReceived: UInt16 = 5
        package static let scoSent: UInt16 = 6
        package static let scoReceived: UInt16 = 7
        package static let isoSent: UInt16 = 18
        package static let isoReceived: UInt16 = 19
    }

    /// Whether `bytes` start with the btsnoop identification.
    package static func isBTSnoop(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 8 && Array(bytes[0..<8]) == identification
    }

    /// Reads and parses the file at `url`; errors name the file by its last path component.
    package static func read(contentsOf url: URL) throws(BTSnoopError) -> BTSnoopFile {
        let name = url.lastPathComponent
        switch FileBytes.contents(ofPath: url.path) {
        case .success(let bytes): return try parse(bytes, name: name)
        case .failure(let failure): throw .unreadable(file: name, reason: failure.reason)
        }
    }

    /// Parses a whole btsnoop file held in memory; `name` is used in error messages.
    ///
    /// Records cut by the capture (included < original length, as Android's filtered mode makes)
    /// are kept as `.truncated` and not decoded. A file that ends inside a record header or its
    /// data is an error naming the record and its offset.
    public static func parse(_ bytes: [UInt8], name: String) throws(BTSnoopError) -> BTSnoopFile {
        guard !bytes.isEmpty else { throw .empty(file: name) }
        guard bytes.count >= 8, Array(bytes[0..<8]) == identification else {
            throw .notBTSnoop(file: name, firstBytes: Array(bytes.prefix(16)))
        }
        guard bytes.count >= fileHeaderLength else {
            throw .truncated(file: name, part: .fileHeader, offset: 0, needed: fileHeaderLength, remaining: bytes.count)
        }
        let version = bytes.u32(at: 8, .big)
        guard version == 1 else { throw .unsupportedVersion(file: name, version: version) }
        let rawDatalink = bytes.u32(at: 12, .big)
        guard let datalink = BTSnoopDatalink(rawValue: rawDatalink) else {
            throw .unsupportedDatalink(file: name, datalink: rawDatalink)
        }

        var records: [BTSnoopPacket] = []
        var offset = fileHeaderLength
        var number = 0
        while offset < bytes.count {
            number += 1
            guard bytes.count - offset >= recordHeaderLength else {
                throw .truncated(
                    file: name, part: .recordHeader(record: number), offset: offset, needed: recordHeaderLength,
                    remaining: bytes.count - offset)
            }
            let original = Int(bytes.u32(at: offset, .big))
            let included = Int(bytes.u32(at: offset + 4, .big))
            let flags = bytes.u32(at: offset + 8, .big)
            let start = offset + recordHeaderLength
            guard bytes.count - start >= included else {
                throw .truncated(
                    file: name, part: .recordData(record: number), offset: offset, needed: included,
                    remaining: bytes.count - start)
            }
            let data = Array(bytes[start..<(start + included)])
            var record = BTSnoopPacket(
                number: number, offset: offset, originalLength: original, includedLength: included, flags: flags,
                cumulativeDrops: bytes.u32(at: offset + 12, .big), timestamp: BTSnoopTimestamp(raw: bytes.u64(at: offset + 16, .big)),
                controllerIndex: datalink == .monitor ? UInt16(flags >> 16) : 0, data: data, content: .other)
            if !record.isTruncated {
                do {
                    record.content = try decode(data, flags: flags, datalink: datalink)
                } catch {
                    throw .malformedPacket(file: name, record: number, offset: offset, problem: error.problem)
                }
            } else {
                record.content = .truncated
            }
            records.append(record)
            offset = start + included
        }
        return BTSnoopFile(name: name, datalink: datalink, packets: records)
    }

    /// Decodes one complete record's data.
    static func decode(_ data: [UInt8], flags: UInt32, datalink: BTSnoopDatalink) throws(HCIDecodeError) -> BTSnoopContent {
        switch datalink {
        case .hciUART:
            // Key on the H4 byte, not flag bit 1: some writers set other bits for commands and
            // events [google/bumble snoop.py]. Bit 0 is the direction.
            guard let first = data.first else { throw HCIDecodeError("an H4 record needs its packet type byte") }
            guard let type = HCIPacketType(rawValue: first) else { return .other }
            let direction: HCIDirection
            switch type {
            case .command: direction = .sent
            case .event: direction = .received
            default: direction = flags & 1 == 0 ? .sent : .received
            }
            return .hci(try HCIPacket.decode(type: type, bytes: Array(data.dropFirst())), direction)
        case .hciUnencapsulated:
            let isControl = flags & 2 != 0
            let received = flags & 1 != 0
            let type: HCIPacketType = isControl ? (received ? .event : .command) : .acl
            return .hci(try HCIPacket.decode(type: type, bytes: data), received ? .received : .sent)
        case .monitor:
            let opcode = UInt16(flags & 0xFFFF)
            let typed: (HCIPacketType, HCIDirection)
            switch opcode {
            case MonitorOpcode.newIndex:
                guard data.count >= 16 else { throw HCIDecodeError("a monitor NEW_INDEX record needs 16 bytes, found \(data.count)") }
                let name = String(decoding: data[8..<16].prefix { $0 != 0 }, as: UTF8.self)
                return .newIndex(type: data[0], bus: data[1], address: BluetoothAddress(littleEndian: data[2..<8])!, name: name)
            case MonitorOpcode.deleteIndex: return .deleteIndex
            case MonitorOpcode.command: typed = (.command, .sent)
            case MonitorOpcode.event: typed = (.event, .received)
            case MonitorOpcode.aclSent: typed = (.acl, .sent)
            case MonitorOpcode.aclReceived: typed = (.acl, .received)
            case MonitorOpcode.scoSent: typed = (.sco, .sent)
            case MonitorOpcode.scoReceived: typed = (.sco, .received)
            case MonitorOpcode.isoSent: typed = (.iso, .sent)
            case MonitorOpcode.isoReceived: typed = (.iso, .received)
            default: return .other
            }
            return .hci(try HCIPacket.decode(type: typed.0, bytes: data), typed.1)
        }
    }
}
