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

    /// `date` in the store's format; `date` must be within ``representable``.
    static func string(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let days = CivilDate.floorDiv(milliseconds, 86_400_000)
        let inDay = Int(milliseconds - days * 86_400_000)
        let (year, month, day) = CivilDate.civil(fromDays: days)
        return String(unsafeUninitializedCapacity: 23) { buffer in
            func put(_ value: Int, at end: Int, width: Int) {
                var rest = value
                for index in stride(from: end, to: end - width, by: -1) {
                    buffer[index] = UInt8(truncatingIfNeeded: 48 + rest % 10)
                    rest /= 10
                }
            }
            put(year, at: 3, width: 4)
            buffer[4] = UInt8(ascii: "-")
            put(month, at: 6, width: 2)
            buffer[7] = UInt8(ascii: "-")
            put(day, at: 9, width: 2)
            buffer[10] = UInt8(ascii: " ")
            put(inDay / 3_600_000, at: 12, width: 2)
            buffer[13] = UInt8(ascii: ":")
            put(inDay / 60_000 % 60, at: 15, width: 2)
            buffer[16] = UInt8(ascii: ":")
            put(inDay / 1000 % 60, at: 18, width: 2)
            buffer[19] = UInt8(ascii: ".")
            put(inDay % 1000, at: 22, width: 3)
            return 23
        }
    }

    /// Parses `YYYY-MM-DD HH:MM:SS` (or with `T` between date and time), with an optional fraction
    /// of 1 to 9 digits, as UTC.
    static func date(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
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
