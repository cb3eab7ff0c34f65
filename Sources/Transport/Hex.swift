/// Hex text to bytes and back, as transcripts and error messages write them.
public enum Hex {
    /// The bytes spelled by `text`: pairs of hex digits (either case), optionally separated by
    /// spaces or tabs. Nil when a character is not a hex digit or a space, or when a pair is split.
    public static func decode(_ text: Substring) -> [UInt8]? {
        if let fast = text.utf8.withContiguousStorageIfAvailable({ decode(ascii: $0) }) { return fast }
        return decode(ascii: Array(text.utf8))
    }

    /// The bytes as uppercase hex pairs joined by `separator`.
    public static func encode(_ bytes: [UInt8], separator: String = " ") -> String {
        let sep = Array(separator.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * (2 + sep.count))
        for (index, byte) in bytes.enumerated() {
            if index > 0 { out.append(contentsOf: sep) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let digits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// The value of one ASCII hex digit, or nil.
    @inline(__always)
    package static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c &- 0x30
        case 0x41...0x46: c &- 0x37
        case 0x61...0x66: c &- 0x57
        default: nil
        }
    }

    @inline(__always)
    package static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }

    /// Decodes ASCII hex held in any byte collection (a UTF-8 view, an array slice, a buffer).
    package static func decode<C: Collection>(ascii text: C) -> [UInt8]? where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 2)
        var iterator = text.makeIterator()
        while let c = iterator.next() {
            if isBlank(c) { continue }
            guard let high = nibble(c), let next = iterator.next(), let low = nibble(next) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }

    /// Why `decode(ascii:)` rejected `text`, for error messages.
    package static func problem<C: Collection>(in text: C) -> String where C.Element == UInt8 {
        var digitCount = 0
        var pending = false
        for (column, c) in text.enumerated() {
            if isBlank(c) {
                if pending { return "a hex pair is split by a space at column \(column + 1)" }
                continue
            }
            guard nibble(c) != nil else {
                let shown = c >= 0x21 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : "byte 0x\(encode([c]))"
                return "\(shown) at column \(column + 1) of the hex is not a hex digit"
            }
            digitCount += 1
            pending.toggle()
        }
        return "odd number of hex digits (\(digitCount)) — a byte is missing a digit"
    }
}
