import Foundation
import Model

/// An instant as glucobridge names it to a person, in outputs and in messages alike: the Day and
/// wall-clock time in the store's zone (`2015-07-17 09:00`), never the storage form.
public enum LocalTimeText {
    /// `2015-07-17 09:00`: the date and time of `date` in `zone` to the minute; with `:SS` when
    /// `seconds` and the instant is not on a whole minute (fractions dropped).
    public static func text(_ date: Date, zone: TimeZone, seconds: Bool = false) -> String {
        let local = Int64(date.timeIntervalSince1970.rounded(.down)) + Int64(zone.secondsFromGMT(for: date))
        let second = Int(local - CivilDate.floorDiv(local, 86_400) * 86_400)
        let time = twoDigits(second / 3600) + ":" + twoDigits(second / 60 % 60)
        return "\(DayDate(instant: date, timeZone: zone)) " + (seconds && second % 60 != 0 ? time + ":" + twoDigits(second % 60) : time)
    }

    /// `value` (0 to 99) with a leading zero.
    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    /// `2015-07-17 09:00 (America/New_York)`: ``text(_:zone:seconds:)`` naming the zone, for a
    /// message that stands alone.
    public static func named(_ date: Date, zone: TimeZone, seconds: Bool = false) -> String {
        "\(text(date, zone: zone, seconds: seconds)) (\(zone.identifier))"
    }
}
