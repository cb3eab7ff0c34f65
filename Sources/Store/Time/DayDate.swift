import Foundation
import Model

/// A local calendar date, the key of a Day: `YYYY-MM-DD` in the store's time zone.
public struct DayDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// A date from its parts; nil when the date does not exist (e.g. 2013-02-30) or the year is
    /// outside 1…9999.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...CivilDate.daysInMonth(year: year, month: month)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD`; nil for any other text or for a date that does not exist.
    public init?(_ string: String) {
        var string = string
        guard let date = string.withUTF8({ DayDate(utf8: $0) }) else { return nil }
        self = date
    }

    /// `init(_:)` of UTF-8 bytes, such as a column's text as SQLite holds it.
    package init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let year = parseDigits(bytes[0..<4]), let month = parseDigits(bytes[5..<7]),
            let day = parseDigits(bytes[8..<10])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The local date of `instant` in `timeZone`.
    public init(instant: Date, timeZone: TimeZone) {
        let offset = Int64(timeZone.secondsFromGMT(for: instant))
        let local = Int64(instant.timeIntervalSince1970.rounded(.down)) + offset
        (year, month, day) = CivilDate.civil(fromDays: CivilDate.floorDiv(local, 86_400))
    }

    public var description: String { CivilDate.dateString(year: year, month: month, day: day) }

    public static func < (lhs: DayDate, rhs: DayDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// The first instant of the Day in `timeZone`: its local midnight, or the first instant after
    /// it when the clocks skip midnight.
    public func start(in timeZone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let noon = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12))!
        return calendar.startOfDay(for: noon)
    }

    /// The Day `days` after this one (before it when negative).
    public func adding(days: Int) -> DayDate {
        let (year, month, day) = CivilDate.civil(fromDays: CivilDate.days(year: year, month: month, day: self.day) + Int64(days))
        return DayDate(year: year, month: month, day: day)!
    }
}
