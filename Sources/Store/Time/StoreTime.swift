import Foundation
import GRDB
import Model

/// The one text format of instants in the store: `YYYY-MM-DD HH:MM:SS.SSS` in UTC, rounded to the
/// millisecond (GRDB's own format for `Date`, and what SQLite's `strftime('%Y-%m-%d %H:%M:%f')`
/// writes). Text order is time order.
enum StoreTime {
    /// The instants the format can hold: years 0001 to 9999.
    static let representable: ClosedRange<Date> = {
        let first = Double(CivilDate.days(year: 1, month: 1, day: 1)) * 86_400
        let last = Double(CivilDate.days(year: 9999, month: 12, day: 31) + 1) * 86_400 - 0.001
        return Date(timeIntervalSince1970: first)...Date(timeIntervalSince1970: last)
    }()

    /// Bytes in an instant written by ``string(_:)``.
    static let length = 23

    /// `date` in the store's format; `date` must be within ``representable``.
    static func string(_ date: Date) -> String {
        String(unsafeUninitializedCapacity: length) { buffer in
            write(date, to: buffer)
            return length
        }
    }

    /// Writes `date` in the store's format to the first ``length`` bytes of `buffer`; `date`
    /// must be within ``representable``.
    static func write(_ date: Date, to buffer: UnsafeMutableBufferPointer<UInt8>) {
        precondition(buffer.count >= length)
        let (milliseconds, days) = day(of: date)
        let inDay = Int(milliseconds - days * 86_400_000)
        let (year, month, day) = CivilDate.civil(fromDays: days)
        CivilDate.putDigits(year, width: 4, endingAt: 3, in: buffer)
        buffer[4] = UInt8(ascii: "-")
        CivilDate.putDigits(month, width: 2, endingAt: 6, in: buffer)
        buffer[7] = UInt8(ascii: "-")
        CivilDate.putDigits(day, width: 2, endingAt: 9, in: buffer)
        buffer[10] = UInt8(ascii: " ")
        writeTimeOfDay(inDay, to: buffer)
    }

    /// The milliseconds since 1970 `date` is written with, and the day they fall on (days since
    /// 1970): instants of the same day differ only in ``writeTimeOfDay(_:to:)``'s bytes.
    static func day(of date: Date) -> (milliseconds: Int64, day: Int64) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        return (milliseconds, CivilDate.floorDiv(milliseconds, 86_400_000))
    }

    /// Writes bytes 11 to 22 of an instant, `HH:MM:SS.SSS`, `inDay` milliseconds into its day.
    static func writeTimeOfDay(_ inDay: Int, to buffer: UnsafeMutableBufferPointer<UInt8>) {
        precondition(buffer.count >= length)
        CivilDate.putTwoDigits(inDay / 3_600_000 % 100, endingAt: 12, in: buffer)
        buffer[13] = UInt8(ascii: ":")
        CivilDate.putTwoDigits(inDay / 60_000 % 60, endingAt: 15, in: buffer)
        buffer[16] = UInt8(ascii: ":")
        CivilDate.putTwoDigits(inDay / 1000 % 60, endingAt: 18, in: buffer)
        buffer[19] = UInt8(ascii: ".")
        CivilDate.putDigits(inDay % 1000, width: 3, endingAt: 22, in: buffer)
    }

    /// Parses `YYYY-MM-DD HH:MM:SS` (or with `T` between date and time), with an optional fraction
    /// of 1 to 9 digits, as UTC.
    static func date(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { date($0) }
    }

    /// `date(_:)` of UTF-8 bytes, such as a column's text as SQLite holds it.
    static func date(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = parseDigits(bytes[0..<4]), let month = parseDigits(bytes[5..<7]),
            let day = parseDigits(bytes[8..<10]), let hour = parseDigits(bytes[11..<13]),
            let minute = parseDigits(bytes[14..<16]), let second = parseDigits(bytes[17..<19]),
            (1...12).contains(month), (1...CivilDate.daysInMonth(year: year, month: month)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var fraction = 0.0
        if bytes.count > 19 {
            guard bytes[19] == UInt8(ascii: "."), (21...29).contains(bytes.count),
                let digits = parseDigits(bytes[20...])
            else { return nil }
            fraction = Double(digits) / pow(10, Double(bytes.count - 20))
        }
        let days = CivilDate.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}

extension StoreTime {
    /// SQL conditions keeping the time `column` within `from ≤ column < to`, one for each bound
    /// given (clamped to ``representable``), and their arguments.
    static func range(_ column: String, from: Date?, to: Date?) -> (conditions: [String], arguments: StatementArguments) {
        var conditions: [String] = []
        var arguments = StatementArguments()
        if let from {
            conditions.append("\(column) >= ?")
            arguments += [string(max(from, representable.lowerBound))]
        }
        if let to {
            conditions.append("\(column) < ?")
            arguments += [string(min(to, representable.upperBound))]
        }
        return (conditions, arguments)
    }
}

/// Parses fixed-width ASCII decimal digits; nil when the slice is empty or holds a non-digit.
func parseDigits<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int? {
    guard !bytes.isEmpty else { return nil }
    var value = 0
    for byte in bytes {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return value
}
