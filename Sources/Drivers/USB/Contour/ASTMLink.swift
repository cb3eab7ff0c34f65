import Transport

/// ASTM E1381 link-layer control bytes.
public enum ASTMControl: UInt8, Sendable {
    case stx = 0x02
    case etx = 0x03
    case eot = 0x04
    case enq = 0x05
    case ack = 0x06
    case nak = 0x15
    case etb = 0x17
    case can = 0x18
}

/// One E1381 frame: `STX, frame number '0'…'7', text, ETB or ETX, two hex checksum digits, CR, LF`.
public struct ASTMFrame: Sendable, Equatable {
    /// The frame number, 0–7 (the first frame is 1; it wraps 7 → 0).
    package var number: UInt8
    /// The frame's text (records end in CR).
    package var text: [UInt8]
    /// True for the last frame of a message (ETX); false when more follows (ETB).
    package var isFinal: Bool

    package init(number: UInt8, text: [UInt8], isFinal: Bool) {
        self.number = number
        self.text = text
        self.isFinal = isFinal
    }

    /// The checksum: the sum of the bytes from the frame number through ETB/ETX, modulo 256.
    package static func checksum(number: UInt8, text: [UInt8], isFinal: Bool) -> UInt8 {
        var sum = UInt32(0x30 + number) + UInt32(isFinal ? ASTMControl.etx.rawValue : ASTMControl.etb.rawValue)
        for byte in text { sum &+= UInt32(byte) }
        return UInt8(sum & 0xFF)
    }

    /// The frame's bytes.
    package func encoded() -> [UInt8] {
        let digits = Array(Hex.encode([Self.checksum(number: number, text: text, isFinal: isFinal)]).utf8)
        return [ASTMControl.stx.rawValue, 0x30 + number] + text
            + [isFinal ? ASTMControl.etx.rawValue : ASTMControl.etb.rawValue] + digits + [0x0D, 0x0A]
    }
}

/// What the meter sent on the link.
public enum ASTMEvent: Sendable, Equatable {
    case control(ASTMControl)
    case frame(ASTMFrame)
}

/// Splits the meter's byte stream into control bytes and checksum-verified frames.
public struct ASTMLinkDecoder: Sendable {
    private var buffer: [UInt8] = []

    public init() {}

    /// Bytes received but not yet part of a whole event.
    package var pendingCount: Int { buffer.count }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next whole event, or nil when more bytes are needed.
    public mutating func next(location: WireLocation) throws(ContourError) -> ASTMEvent? {
        while let first = buffer.first {
            if first == ASTMControl.stx.rawValue { break }
            buffer.removeFirst()
            if let control = ASTMControl(rawValue: first) { return .control(control) }
            // Anything else between frames (stray CR/LF, padding) carries nothing.
        }
        guard buffer.count >= 2 else { return nil }
        guard let end = buffer.firstIndex(where: { $0 == ASTMControl.etb.rawValue || $0 == ASTMControl.etx.rawValue }) else {
            if buffer.count > 247 + 7 {
                throw .malformedFrame(location: location, reason: "no ETB or ETX within \(buffer.count) bytes")
            }
            return nil
        }
        guard buffer.count >= end + 5 else { return nil }
        let digit = buffer[1]
        guard (0x30...0x37).contains(digit) else {
            throw .malformedFrame(location: location, reason: "frame number byte 0x\(String(digit, radix: 16)) is not '0'…'7'")
        }
        let number = digit - 0x30
        let text = Array(buffer[2..<end])
        let isFinal = buffer[end] == ASTMControl.etx.rawValue
        let found = String(decoding: buffer[(end + 1)...(end + 2)], as: UTF8.self)
        let expected = ASTMFrame.checksum(number: number, text: text, isFinal: isFinal)
        let name = location.with(message: "\(number) (\(String(decoding: text.prefix(24), as: UTF8.self).trimmingCharacters(in: "\r"))…)")
        guard UInt8(found, radix: 16) == expected else {
            throw .frameChecksumMismatch(frame: name, expected: expected, found: found)
        }
        guard buffer[end + 3] == 0x0D, buffer[end + 4] == 0x0A else {
            throw .malformedFrame(location: name, reason: "the checksum is not followed by CR LF")
        }
        buffer.removeFirst(end + 5)
        return .frame(ASTMFrame(number: number, text: text, isFinal: isFinal))
    }
}
