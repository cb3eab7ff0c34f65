import Foundation
import Model

/// Texts, numbers and times as the exports write them, byte for byte as they were written when
/// CSV was built from Swift strings and JSON by `JSONEncoder` (pretty, sorted keys, slashes not
/// escaped): the common case straight from the bytes, the rare one through the same string code.
extension ExportOutput {
    // MARK: Text

    /// A column's text as GRDB reads it into a `String`: up to its first NUL, bytes that are not
    /// UTF-8 replaced (U+FFFD).
    static func string(_ column: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: column.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// Whether `text` is ASCII without NUL and CR: text whose every byte is a character of its
    /// own (CR LF is one `Character`) and which a `String` holds unchanged.
    @inline(__always)
    static func isPlainASCII(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in text where byte == 0 || byte >= 0x80 || byte == UInt8(ascii: "\r") { return false }
        return true
    }

    /// A CSV field of a column's text (RFC 4180): in quotes, its quotes doubled, when it holds a
    /// comma, a quote or a line break.
    package mutating func appendCSV(column text: UnsafeBufferPointer<UInt8>) {
        if Self.isPlainASCII(text) { appendPlainCSV(text) } else { appendCSV(Self.string(text)) }
    }

    /// A CSV field of `text`, decided on its characters (a comma, a quote or a line feed that is
    /// a `Character` of its own).
    package mutating func appendCSV(_ text: String) {
        var text = text
        if text.withUTF8({ Self.isPlainASCII($0) }) {
            text.withUTF8 { appendPlainCSV($0) }
        } else if text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) {
            append(UInt8(ascii: "\""))
            append(text.replacingOccurrences(of: "\"", with: "\"\""))
            append(UInt8(ascii: "\""))
        } else {
            append(text)
        }
    }

    private mutating func appendPlainCSV(_ text: UnsafeBufferPointer<UInt8>) {
        var quoted = false
        for byte in text where byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\n") {
            quoted = true
            break
        }
        guard quoted else { return append(text) }
        append(UInt8(ascii: "\""))
        var start = 0
        for index in text.indices where text[index] == UInt8(ascii: "\"") {
            append(UnsafeBufferPointer(rebasing: text[start...index]))
            start = index
        }
        append(UnsafeBufferPointer(rebasing: text[start...]))
        append(UInt8(ascii: "\""))
    }

    /// A JSON string of a column's text.
    package mutating func appendJSON(column text: UnsafeBufferPointer<UInt8>) {
        for byte in text where byte == 0 || byte >= 0x80 { return appendJSON(Self.string(text)) }
        appendJSONEscaped(text)
    }

    /// A JSON string of `text`.
    package mutating func appendJSON(_ text: String) {
        var text = text
        text.withUTF8 { appendJSONEscaped($0) }
    }

    /// `"text"` with the escapes `JSONEncoder` writes: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`,
    /// other control characters as `\u00XX`; `/` and everything else as it is.
    private mutating func appendJSONEscaped(_ text: UnsafeBufferPointer<UInt8>) {
        append(UInt8(ascii: "\""))
        var start = 0
        for index in text.indices {
            let byte = text[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            if start < index { append(UnsafeBufferPointer(rebasing: text[start..<index])) }
            start = index + 1
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case UInt8(ascii: "\n"): append("\\n")
            case UInt8(ascii: "\r"): append("\\r")
            case UInt8(ascii: "\t"): append("\\t")
            default:
                append("\\u00")
                append(Self.hex[Int(byte >> 4)])
                append(Self.hex[Int(byte & 0xF)])
            }
        }
        if start < text.count { append(UnsafeBufferPointer(rebasing: text[start...])) }
        append(UInt8(ascii: "\""))
    }

    private static let hex = Array("0123456789abcdef".utf8)

    // MARK: Numbers

    /// A stored glucose value exactly (`100`, `99.7`): ``GlucoseValueText/exact(_:)``, which is
    /// also what `JSONEncoder` writes of it.
    package mutating func appendExact(_ value: Double) {
        let snapped = GlucoseValueText.snapped(value)
        if let whole = Int(exactly: snapped) { append(integer: whole) } else { append(snapped.description) }
    }

    /// `value` rounded to `places` decimals, as `JSONEncoder` writes a `Double`: its shortest
    /// round-trip digits, without a trailing `.0`.
    package mutating func appendJSON(_ value: Double, places: Int) {
        let scale = Self.scale(places)
        let scaled = (value * scale).rounded()
        // Below 10^15 (and above 10^-4, where `description` turns to an exponent) the double
        // nearest scaled / scale prints as those digits and only them: no other decimal of as few
        // digits is as near.
        if scaled > 0, scaled < 1e15, places <= 4 {
            appendDigits(Int(scaled), places: places, trimmingZeros: true)
        } else {
            var text = (scaled / scale).description
            if text.hasSuffix(".0") { text.removeLast(2) }
            append(text)
        }
    }

    /// `value` rounded to `places` decimals with all of them (`10.0`), as `%.{places}f` prints
    /// it; with `trimmingZeros`, without trailing zeros and point (`45`, `60.5`), as
    /// ``DisplayText/number(_:decimals:)``.
    package mutating func appendCSV(_ value: Double, places: Int, trimmingZeros: Bool) {
        let scale = Self.scale(places)
        let scaled = (value * scale).rounded()
        guard scaled.magnitude < 1e15 else {
            let rounded = scaled / scale
            return append(trimmingZeros ? DisplayText.number(rounded, decimals: places) : String(format: "%.\(places)f", rounded))
        }
        let negative = (scaled / scale).sign == .minus
        let whole = Int(scaled.magnitude)
        if negative, !(trimmingZeros && whole == 0) { append(UInt8(ascii: "-")) }
        appendDigits(whole, places: places, trimmingZeros: trimmingZeros)
    }

    /// `scaled` ÷ 10^`places` in decimal: all the decimals, or without trailing zeros.
    private mutating func appendDigits(_ scaled: Int, places: Int, trimmingZeros: Bool) {
        guard places > 0 else { return append(integer: scaled) }
        var divisor = 1
        for _ in 0..<places { divisor *= 10 }
        append(integer: scaled / divisor)
        var fraction = scaled % divisor
        var count = places
        if trimmingZeros {
            guard fraction != 0 else { return }
            while fraction % 10 == 0 {
                fraction /= 10
                count -= 1
            }
        }
        append(UInt8(ascii: "."))
        bytes.appendDigits(fraction, width: count)
    }

    private static func scale(_ places: Int) -> Double {
        switch places {
        case 0: 1
        case 1: 10
        case 2: 100
        default: pow(10, Double(places))
        }
    }

    // MARK: Time

    /// `2013-09-13T04:27:34Z`: `date` to the nearest second, UTC; with `milliseconds`,
    /// `2015-07-18T00:18:17.000Z`, to the nearest millisecond, as Nightscout writes it.
    package mutating func appendInstant(_ date: Date, milliseconds: Bool) {
        if milliseconds {
            appendTimestamp(milliseconds: Self.milliseconds(date), fraction: true)
        } else {
            appendTimestamp(milliseconds: Int64(date.timeIntervalSince1970.rounded()) * 1000, fraction: false)
        }
    }

    /// Milliseconds since 1970 of `date`, rounded.
    package static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// ISO 8601 in UTC of an instant in milliseconds since 1970, written from its calendar parts
    /// (years 1 to 9999, as the store holds them).
    package mutating func appendTimestamp(milliseconds: Int64, fraction: Bool) {
        let days = CivilDate.floorDiv(milliseconds, 86_400_000)
        let inDay = Int(milliseconds - days * 86_400_000)
        let (year, month, day) = CivilDate.civil(fromDays: days)
        bytes.appendDigits(year, width: 4)
        append(UInt8(ascii: "-"))
        appendTwoDigits(month)
        append(UInt8(ascii: "-"))
        appendTwoDigits(day)
        append(UInt8(ascii: "T"))
        appendTwoDigits(inDay / 3_600_000)
        append(UInt8(ascii: ":"))
        appendTwoDigits(inDay / 60_000 % 60)
        append(UInt8(ascii: ":"))
        appendTwoDigits(inDay / 1000 % 60)
        if fraction {
            let milliseconds = inDay % 1000
            append(UInt8(ascii: "."))
            append(UInt8(truncatingIfNeeded: 48 + milliseconds / 100))
            appendTwoDigits(milliseconds % 100)
        }
        append(UInt8(ascii: "Z"))
    }

    @inline(__always)
    private mutating func appendTwoDigits(_ value: Int) {
        append(UInt8(truncatingIfNeeded: 48 + value / 10))
        append(UInt8(truncatingIfNeeded: 48 + value % 10))
    }
}
