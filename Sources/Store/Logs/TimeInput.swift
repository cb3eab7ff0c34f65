import Foundation
import Model

/// Reads the instants and Days a person types, in the store's zone: the one reading of times that
/// the command-line tool and an app share.
///
/// - An instant: `now`; ISO 8601 with a zone (`2024-05-01T06:30:00Z`, `2024-05-01T08:30+02:00`,
///   fractional seconds allowed); or a wall-clock time in the zone, `YYYY-MM-DD HH:MM[:SS]` (or
///   with `T`), or `HH:MM[:SS]` for today. A wall-clock time the clocks skip (the spring-forward
///   gap) is an error; one they repeat (the autumn hour) is the earlier of the two: give an
///   offset for the later.
/// - A Day: `YYYY-MM-DD`, `today` or `yesterday`.
/// - A bound of a period: a Day (its start, or for an end the next Day's start) or an instant.
public enum TimeInput {
    /// What ``instant(_:zone:now:)`` accepts, for help texts.
    public static let help =
        "now, an instant (2024-05-01T06:30:00Z, 2024-05-01T08:30+02:00), or a local time in the store's zone (2024-05-01 08:30, or 08:30 for today)"

    /// Which end of a period ``bound(_:_:zone:now:)`` reads: a Day given as a start is its first
    /// instant, as an end the first instant of the next Day (so the Day counts whole).
    public enum End: Sendable {
        case start, end
    }

    /// The instant `text` names (see ``TimeInput``), with `now` for `now` and for today.
    public static func instant(_ text: String, zone: TimeZone, now: Date = Date()) throws(TimeInputError) -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "now" { return now }
        let iso = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
            iso.formatOptions = options
            if let date = iso.date(from: trimmed) { return date }
        }
        if let (local, offset) = withOffset(trimmed) {
            return Date(timeIntervalSince1970: local.secondsSince1970 - Double(offset))
        }
        guard let local = LocalTime(trimmed, today: DayDate(instant: now, timeZone: zone)) else {
            throw .notATime(text)
        }
        return try local.instant(in: zone)
    }

    /// The Day `text` names: `YYYY-MM-DD`, or `today` and `yesterday` at `now` in `zone`.
    public static func day(_ text: String, zone: TimeZone, now: Date = Date()) throws(TimeInputError) -> DayDate {
        switch text {
        case "today": return DayDate(instant: now, timeZone: zone)
        case "yesterday": return DayDate(instant: now.addingTimeInterval(-86_400), timeZone: zone)
        default:
            guard let day = DayDate(text) else { throw .notADay(text) }
            return day
        }
    }

    /// One end of a period: a Day (`2024-05-01`, `today`, `yesterday`) is its first instant in
    /// `zone`, or as an `.end` the next Day's first instant; anything else is read as an
    /// ``instant(_:zone:now:)``.
    public static func bound(_ text: String, _ end: End, zone: TimeZone, now: Date = Date()) throws(TimeInputError) -> Date {
        if DayDate(text) != nil || text == "today" || text == "yesterday" {
            let day = try day(text, zone: zone, now: now)
            return (end == .end ? day.adding(days: 1) : day).start(in: zone)
        }
        return try instant(text, zone: zone, now: now)
    }

    /// A date and time (seconds optional) ending in `Z` or `±HH:MM`: the wall clock and the offset.
    private static func withOffset(_ text: String) -> (LocalTime, Int)? {
        let offset: Int
        var rest = Substring(text)
        if rest.hasSuffix("Z") {
            offset = 0
            rest = rest.dropLast()
        } else {
            let suffix = Array(rest.suffix(6))
            guard suffix.count == 6, suffix[0] == "+" || suffix[0] == "-", suffix[3] == ":",
                let hours = Int(String(suffix[1...2])), let minutes = Int(String(suffix[4...5])),
                hours < 24, minutes < 60
            else { return nil }
            offset = (suffix[0] == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
            rest = rest.dropLast(6)
        }
        guard rest.contains("-"), let local = LocalTime(String(rest), today: DayDate(year: 1970, month: 1, day: 1)!)
        else { return nil }
        return (local, offset)
    }
}

/// Text ``TimeInput`` cannot read, with a message that says what to type instead.
public enum TimeInputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not an instant or a local time.
    case notATime(String)
    /// The text is not a Day.
    case notADay(String)
    /// The wall-clock time (`time`, `HH:MM[:SS]`) of `day` does not exist in the zone: the clocks
    /// skip it (the spring-forward gap).
    case skippedByClocks(day: DayDate, time: String, zone: String)

    public var description: String {
        switch self {
        case .notATime(let text): "cannot read \"\(text)\" as a time: use \(TimeInput.help)"
        case .notADay(let text): "cannot read \"\(text)\" as a Day: use YYYY-MM-DD (2024-05-01), today or yesterday"
        case .skippedByClocks(let day, let time, let zone): "\(day) \(time) does not exist in \(zone): the clocks skip it"
        }
    }
}

/// A wall-clock date and time without a zone.
struct LocalTime {
    var day: DayDate
    var seconds: Int

    /// `YYYY-MM-DD HH:MM[:SS]`, `YYYY-MM-DDTHH:MM[:SS]`, or `HH:MM[:SS]` on `today`.
    init?(_ text: String, today: DayDate) {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "T" })
        let clock: Substring
        switch parts.count {
        case 1:
            day = today
            clock = parts[0]
        case 2:
            guard let date = DayDate(String(parts[0])) else { return nil }
            day = date
            clock = parts[1]
        default:
            return nil
        }
        let fields = clock.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count), fields.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hour = Int(fields[0]), let minute = Int(fields[1]), hour < 24, minute < 60
        else { return nil }
        let second = fields.count == 3 ? Int(fields[2]) : 0
        guard let second, second < 60 else { return nil }
        seconds = hour * 3600 + minute * 60 + second
    }

    /// The wall clock's seconds since 1970-01-01 00:00, as if it were UTC.
    var secondsSince1970: Double {
        Double(CivilDate.days(year: day.year, month: day.month, day: day.day) * 86_400 + Int64(seconds))
    }

    /// `HH:MM`, or `HH:MM:SS` when the seconds are not 0.
    var clock: String {
        let hm = String(format: "%02d:%02d", seconds / 3600, seconds / 60 % 60)
        return seconds % 60 == 0 ? hm : hm + String(format: ":%02d", seconds % 60)
    }

    /// The instant this wall-clock time shows in `zone`: the earlier one when the clocks repeat
    /// it; an error when they skip it.
    func instant(in zone: TimeZone) throws(TimeInputError) -> Date {
        let local = secondsSince1970
        let offsets = Set([-86_400.0, 0, 86_400].map { zone.secondsFromGMT(for: Date(timeIntervalSince1970: local + $0)) })
        let candidates = offsets.map { Date(timeIntervalSince1970: local - Double($0)) }
            .filter { zone.secondsFromGMT(for: $0) == Int(local - $0.timeIntervalSince1970) }
        guard let first = candidates.min() else {
            throw .skippedByClocks(day: day, time: clock, zone: zone.identifier)
        }
        return first
    }
}
