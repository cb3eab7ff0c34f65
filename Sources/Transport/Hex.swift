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

    /// `value` as `count` uppercase hex digits, zero-padded (`2A37` for 0x2A37 and 4); more
    /// digits when the value needs them.
    public static func digits(_ value: some BinaryInteger, count: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, count - text.count)) + text
    }

    /// `value` as a C-style literal of `count` hex digits: `0x002A`.
    public static func literal(_ value: some BinaryInteger, digits count: Int = 4) -> String {
        "0x" + digits(value, count: count)
    }

    /// The first `limit` bytes as hex pairs for a message, ` …` after them when there are more.
    public static func preview(_ bytes: some Collection<UInt8>, limit: Int = 16) -> String {
        let shown = encode(Array(bytes.prefix(limit)))
        return bytes.count > limit ? shown + " …" : shown
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
