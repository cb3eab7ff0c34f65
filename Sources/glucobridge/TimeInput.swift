import Foundation
import Model
import Store

/// Reads the instants and Days given on the command line.
enum TimeInput {
    static let help = "now, an instant (2024-05-01T06:30:00Z, 2024-05-01T08:30+02:00), or a local time in the store's zone (2024-05-01 08:30, or 08:30 for today)"

    /// `now`; ISO 8601 with a zone (`Z` or an offset); `YYYY-MM-DD HH:MM[:SS]` (or with `T`) in
    /// `zone`; or `HH:MM[:SS]` today in `zone`. A local time the clocks skip is an error; one they
    /// repeat is the earlier of the two (give an offset for the later).
    static func instant(_ text: String, zone: TimeZone, now: Date = Date()) throws -> Date {
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
            throw CLIError("cannot read \"\(text)\" as a time: use \(help)")
        }
        return try local.instant(in: zone)
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

    /// `YYYY-MM-DD`, `today` or `yesterday` (in `zone`).
    static func day(_ text: String, zone: TimeZone, now: Date = Date()) throws -> DayDate {
        switch text {
        case "today": return DayDate(instant: now, timeZone: zone)
        case "yesterday": return DayDate(instant: now.addingTimeInterval(-86_400), timeZone: zone)
        default:
            guard let day = DayDate(text) else {
                throw CLIError("cannot read \"\(text)\" as a Day: use YYYY-MM-DD (2024-05-01), today or yesterday")
            }
            return day
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

    /// The instant this wall-clock time shows in `zone`: the earlier one when the clocks repeat
    /// it; an error when they skip it.
    func instant(in zone: TimeZone) throws -> Date {
        let local = secondsSince1970
        let offsets = Set([-86_400.0, 0, 86_400].map { zone.secondsFromGMT(for: Date(timeIntervalSince1970: local + $0)) })
        let candidates = offsets.map { Date(timeIntervalSince1970: local - Double($0)) }
            .filter { zone.secondsFromGMT(for: $0) == Int(local - $0.timeIntervalSince1970) }
        guard let first = candidates.min() else {
            throw CLIError("\(day) \(Format.clock(seconds)) does not exist in \(zone.identifier): the clocks skip it")
        }
        return first
    }
}
