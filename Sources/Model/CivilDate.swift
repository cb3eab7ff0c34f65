/// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), after
/// Howard Hinnant's `days_from_civil` / `civil_from_days`. Exact for every year, no `Calendar` needed.
public enum CivilDate {
    /// The year, month and day of a day number.
    public static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    /// The day number of a year, month and day.
    public static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `a` divided by `b`, rounded towards negative infinity.
    public static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// `yyyy-MM-dd`.
    public static func dateString(year: Int, month: Int, day: Int) -> String {
        String(decoding: dateBytes(year: year, month: month, day: day), as: UTF8.self)
    }

    /// `yyyy-MM-ddTHH:mm:ss` of `seconds` since 1970 read as a wall clock, without a zone.
    public static func wallClock(_ seconds: Int64) -> String {
        let days = floorDiv(seconds, 86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civil(fromDays: days)
        guard (0...9999).contains(year) else {
            var text = dateBytes(year: year, month: month, day: day)
            text.append(UInt8(ascii: "T"))
            text.appendDigits(secondOfDay / 3600, width: 2)
            text.append(UInt8(ascii: ":"))
            text.appendDigits(secondOfDay / 60 % 60, width: 2)
            text.append(UInt8(ascii: ":"))
            text.appendDigits(secondOfDay % 60, width: 2)
            return String(decoding: text, as: UTF8.self)
        }
        return String(unsafeUninitializedCapacity: 19) { buffer in
            writeFixedWidth((year, month, day), secondOfDay: secondOfDay, to: buffer)
            return 19
        }
    }

    /// Writes `YYYY-MM-DDTHH:MM:SS` of a date whose year has four digits into the first 19 bytes
    /// of `buffer`: every part has a fixed width, so the bytes are written in place.
    private static func writeFixedWidth(
        _ date: (year: Int, month: Int, day: Int), secondOfDay: Int, to buffer: UnsafeMutableBufferPointer<UInt8>
    ) {
        putDigits(date.year, width: 4, endingAt: 3, in: buffer)
        buffer[4] = UInt8(ascii: "-")
        putDigits(date.month, width: 2, endingAt: 6, in: buffer)
        buffer[7] = UInt8(ascii: "-")
        putDigits(date.day, width: 2, endingAt: 9, in: buffer)
        buffer[10] = UInt8(ascii: "T")
        writeTimeOfDay(secondOfDay, to: buffer)
    }

    /// Writes the `HH:MM:SS` of ``writeFixedWidth(_:secondOfDay:to:)``, bytes 11 to 18.
    private static func writeTimeOfDay(_ secondOfDay: Int, to buffer: UnsafeMutableBufferPointer<UInt8>) {
        putTwoDigits(secondOfDay / 3600 % 100, endingAt: 12, in: buffer)
        buffer[13] = UInt8(ascii: ":")
        putTwoDigits(secondOfDay / 60 % 60, endingAt: 15, in: buffer)
        buffer[16] = UInt8(ascii: ":")
        putTwoDigits(secondOfDay % 60, endingAt: 18, in: buffer)
    }

    /// ``wallClock(_:)`` appended to a buffer, for a run of times mostly on the day of the one
    /// before, such as a device's records: a day's year, month and day are worked out once, and
    /// no string is made.
    public struct WallClockWriter: Sendable {
        private var days = Int64.min
        private var date = (year: 0, month: 0, day: 0)
        /// The text last written: its date stays for the next time of the same day.
        private var text: (UInt64, UInt64, UInt32) = (0, 0, 0)

        public init() {}

        /// Appends the bytes of `wallClock(seconds)` to `bytes`.
        public mutating func append(_ seconds: Int64, to bytes: inout [UInt8]) {
            let days = floorDiv(seconds, 86_400)
            let sameDay = days == self.days
            if !sameDay {
                self.days = days
                date = civil(fromDays: days)
            }
            guard (0...9999).contains(date.year) else { return bytes.append(contentsOf: wallClock(seconds).utf8) }
            let date = date
            withUnsafeMutableBytes(of: &text) { raw in
                let buffer = raw.bindMemory(to: UInt8.self)
                if sameDay {
                    writeTimeOfDay(Int(seconds - days * 86_400), to: buffer)
                } else {
                    writeFixedWidth(date, secondOfDay: Int(seconds - days * 86_400), to: buffer)
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<19]))
            }
        }
    }

    /// Writes `value` (0 to 99) as two decimal digits into `buffer`, the last at `end`: one
    /// division, where ``putDigits(_:width:endingAt:in:)`` loops.
    @inlinable
    public static func putTwoDigits(_ value: Int, endingAt end: Int, in buffer: UnsafeMutableBufferPointer<UInt8>) {
        let tens = value / 10
        buffer[end - 1] = UInt8(truncatingIfNeeded: 48 + tens)
        buffer[end] = UInt8(truncatingIfNeeded: 48 + value - tens * 10)
    }

    /// Writes the last `width` decimal digits of `value` (≥ 0) into `buffer`, zero-padded, the
    /// last digit at `end`.
    @inlinable
    public static func putDigits(_ value: Int, width: Int, endingAt end: Int, in buffer: UnsafeMutableBufferPointer<UInt8>) {
        var rest = value
        for index in stride(from: end, to: end - width, by: -1) {
            buffer[index] = UInt8(truncatingIfNeeded: 48 + rest % 10)
            rest /= 10
        }
    }

    private static func dateBytes(year: Int, month: Int, day: Int) -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity(19)
        text.appendDigits(year, width: 4)
        text.append(UInt8(ascii: "-"))
        text.appendDigits(month, width: 2)
        text.append(UInt8(ascii: "-"))
        text.appendDigits(day, width: 2)
        return text
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` as `width` ASCII digits, zero-padded (a negative year keeps its sign).
    public mutating func appendDigits(_ value: Int, width: Int) {
        if value < 0 {
            append(UInt8(ascii: "-"))
            appendDigits(-value, width: width)
            return
        }
        var length = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            length += 1
        }
        let digits = Swift.max(width, length)
        let start = count
        append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        rest = value
        for index in stride(from: start + digits - 1, through: start, by: -1) {
            self[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
    }
}
