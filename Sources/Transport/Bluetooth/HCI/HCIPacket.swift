/// Which way an HCI packet crossed the host–controller interface.
package enum HCIDirection: String, Sendable, Equatable {
    /// Host to controller: commands and outgoing ACL data (toward the peer device).
    case sent
    /// Controller to host: events and incoming ACL data (from the peer device).
    case received
}

/// The H4 packet indicator that precedes each packet on a UART and in datalink 1002
/// [BlueZ lib/bluetooth/hci.h `HCI_*_PKT`].
public enum HCIPacketType: UInt8, Sendable, Equatable {
    case command = 0x01
    case acl = 0x02
    case sco = 0x03
    case event = 0x04
    case iso = 0x05
}

/// Why bytes could not be decoded as an HCI packet, an event's parameters or an L2CAP frame; the
/// capture reader adds the file, record and offset.
public struct HCIDecodeError: Error, Equatable, CustomStringConvertible {
    package let problem: String

    package init(_ problem: String) {
        self.problem = problem
    }

    public var description: String { problem }
}

/// An ACL data packet: handle and flags, then a fragment of an L2CAP frame
/// [BlueZ lib/bluetooth/hci.h `hci_acl_hdr`, `acl_handle`, `acl_flags`].
public struct HCIACLPacket: Sendable, Equatable {
    /// The connection handle (12 bits).
    package var handle: UInt16
    /// The packet-boundary flag (bits 12–13): 0b00 first non-flushable (host start),
    /// 0b01 continuation, 0b10 first flushable (controller start).
    package var boundary: UInt8
    /// The broadcast flag (bits 14–15).
    package var broadcast: UInt8
    /// The fragment.
    package var data: [UInt8]

    package static let startNonFlushable: UInt8 = 0b00
    package static let continuation: UInt8 = 0b01
    package static let startFlushable: UInt8 = 0b10

    package init(handle: UInt16, boundary: UInt8, broadcast: UInt8 = 0, data: [UInt8]) {
        self.handle = handle & 0x0FFF
        self.boundary = boundary & 0b11
        self.broadcast = broadcast & 0b11
        self.data = data
    }

    /// Whether this fragment starts an L2CAP frame (any boundary flag but continuation).
    package var isStart: Bool { boundary != Self.continuation }
}

/// One HCI packet, without the H4 indicator byte.
public enum HCIPacket: Sendable, Equatable {
    /// Opcode (OGF << 10 | OCF) and parameters.
    case command(opcode: UInt16, parameters: [UInt8])
    /// Event code and parameters; `HCIEvent(code:parameters:)` decodes the ones that matter here.
    case event(code: UInt8, parameters: [UInt8])
    case acl(HCIACLPacket)
    /// Synchronous (voice) data, kept only to be skipped.
    case sco(handle: UInt16, data: [UInt8])
    /// Isochronous data, kept raw.
    case iso([UInt8])

    package var type: HCIPacketType {
        switch self {
        case .command: .command
        case .event: .event
        case .acl: .acl
        case .sco: .sco
        case .iso: .iso
        }
    }

    /// Decodes `bytes` (no H4 byte) as a packet of `type`. Length fields must match the bytes.
    public static func decode(type: HCIPacketType, bytes: [UInt8]) throws(HCIDecodeError) -> HCIPacket {
        switch type {
        case .command:
            guard bytes.count >= 3 else { throw HCIDecodeError("an HCI command needs 3 header bytes, found \(bytes.count)") }
            let length = Int(bytes[2])
            guard bytes.count - 3 == length else {
                throw HCIDecodeError("HCI command parameter length \(length) but \(bytes.count - 3) bytes follow")
            }
            return .command(opcode: UInt16(bytes[0]) | UInt16(bytes[1]) << 8, parameters: Array(bytes[3...]))
        case .event:
            guard bytes.count >= 2 else { throw HCIDecodeError("an HCI event needs 2 header bytes, found \(bytes.count)") }
            let length = Int(bytes[1])
            guard bytes.count - 2 == length else {
                throw HCIDecodeError(
                    "HCI event 0x\(Hex.encode([bytes[0]])) parameter length \(length) but \(bytes.count - 2) bytes follow")
            }
            return .event(code: bytes[0], parameters: Array(bytes[2...]))
        case .acl:
            guard bytes.count >= 4 else { throw HCIDecodeError("an ACL packet needs 4 header bytes, found \(bytes.count)") }
            let word = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
            let length = Int(UInt16(bytes[2]) | UInt16(bytes[3]) << 8)
            guard bytes.count - 4 == length else {
                throw HCIDecodeError("ACL data length \(length) but \(bytes.count - 4) bytes follow")
            }
            return .acl(
                HCIACLPacket(
                    handle: word & 0x0FFF, boundary: UInt8((word >> 12) & 0b11), broadcast: UInt8(word >> 14),
                    data: Array(bytes[4...])))
        case .sco:
            guard bytes.count >= 3 else { throw HCIDecodeError("an SCO packet needs 3 header bytes, found \(bytes.count)") }
            return .sco(handle: (UInt16(bytes[0]) | UInt16(bytes[1]) << 8) & 0x0FFF, data: Array(bytes[3...]))
        case .iso:
            return .iso(bytes)
        }
    }

    /// The packet's bytes without the H4 indicator, length fields filled in.
    package var bytes: [UInt8] {
        switch self {
        case .command(let opcode, let parameters):
            return [UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(truncatingIfNeeded: parameters.count)] + parameters
        case .event(let code, let parameters):
            return [code, UInt8(truncatingIfNeeded: parameters.count)] + parameters
        case .acl(let packet):
            let word = packet.handle & 0x0FFF | UInt16(packet.boundary) << 12 | UInt16(packet.broadcast) << 14
            var out: [UInt8] = []
            out.appendLE(word)
            out.appendLE(UInt16(truncatingIfNeeded: packet.data.count))
            return out + packet.data
        case .sco(let handle, let data):
            var out: [UInt8] = []
            out.appendLE(handle & 0x0FFF)
            out.append(UInt8(truncatingIfNeeded: data.count))
            return out + data
        case .iso(let bytes):
            return bytes
        }
    }
}
