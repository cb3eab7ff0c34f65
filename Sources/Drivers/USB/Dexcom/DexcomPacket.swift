import Checksums
import Transport

/// One frame of the receiver's serial protocol:
/// `01 | length u16 LE | command or reply code | payload | CRC-16/XMODEM u16 LE`,
/// where the length counts every byte of the frame.
public struct DexcomPacket: Sendable, Equatable {
    /// The command id (host → receiver) or the reply code (receiver → host).
    package var code: UInt8
    public var payload: [UInt8]

    package static let startOfFrame: UInt8 = 0x01
    /// Framing bytes around the payload: start, length (2), code, CRC (2).
    package static let overhead = 6
    /// The largest frame accepted: eight 528-byte pages. Vendor software asks for four at once.
    package static let maximumLength = overhead + 8 * DexcomPage.size

    public init(code: UInt8, payload: [UInt8] = []) {
        self.code = code
        self.payload = payload
    }

    /// The request for `command`. Only `DexcomCommand` values can be encoded, so only reads.
    package static func request(_ command: DexcomCommand, payload: [UInt8] = []) -> [UInt8] {
        DexcomPacket(code: command.rawValue, payload: payload).encoded()
    }

    /// The frame's bytes.
    package func encoded() -> [UInt8] {
        let length = UInt16(Self.overhead + payload.count)
        var bytes: [UInt8] = [Self.startOfFrame, UInt8(length & 0xFF), UInt8(length >> 8), code]
        bytes += payload
        let crc = CRC16.xmodem.checksum(bytes)
        bytes += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        return bytes
    }

    /// Decodes exactly one frame, which must fill `bytes`. `location` names it in errors (and is
    /// only worked out for one).
    public static func decode(_ bytes: [UInt8], location: @autoclosure @escaping @Sendable () -> WireLocation) throws(DexcomError) -> DexcomPacket {
        var assembler = DexcomPacketAssembler(location: location())
        assembler.append(bytes)
        guard let packet = try assembler.nextPacket() else {
            throw .incompleteReply(location: location(), received: bytes.count, expected: assembler.pendingLength)
        }
        guard assembler.bufferedCount == 0 else {
            throw .malformedPacket(location: location(), reason: "\(assembler.bufferedCount) bytes follow the frame")
        }
        return packet
    }
}

/// Collects frames from a byte stream that arrives in pieces (USB transfers of any size).
public struct DexcomPacketAssembler: Sendable {
    private var buffer: [UInt8] = []
    /// Names the stream in errors; only worked out for one.
    private var location: @Sendable () -> WireLocation

    public init(location: @autoclosure @escaping @Sendable () -> WireLocation) {
        self.location = location
    }

    /// Bytes received and not yet consumed by a frame.
    package var bufferedCount: Int { buffer.count }

    /// The length the frame being collected announces, once its header has arrived.
    package var pendingLength: Int? {
        buffer.count >= 3 ? Int(buffer[1]) | Int(buffer[2]) << 8 : nil
    }

    public mutating func append(_ bytes: [UInt8]) {
        buffer += bytes
    }

    /// The next whole frame, or nil when more bytes are needed.
    public mutating func nextPacket() throws(DexcomError) -> DexcomPacket? {
        guard let first = buffer.first else { return nil }
        guard first == DexcomPacket.startOfFrame else {
            throw .malformedPacket(location: location(), reason: "expected start byte 0x01, found \(Hex.preview(buffer))")
        }
        guard let length = pendingLength else { return nil }
        guard length >= DexcomPacket.overhead, length <= DexcomPacket.maximumLength else {
            throw .malformedPacket(location: location(), reason: "impossible frame length \(length) in \(Hex.preview(buffer))")
        }
        guard buffer.count >= length else { return nil }
        let found = buffer.u16le(at: length - 2)
        let expected = CRC16.xmodem.checksum(buffer[0..<(length - 2)])
        guard found == expected else {
            throw .packetCRCMismatch(location: location(), expected: expected, found: found)
        }
        let packet = DexcomPacket(code: buffer[3], payload: Array(buffer[4..<(length - 2)]))
        buffer.removeFirst(length)
        return packet
    }
}
