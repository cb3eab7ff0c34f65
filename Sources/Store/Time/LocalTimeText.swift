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
        var time: [UInt8] = []
        time.appendDigits(second / 3600, width: 2)
        time.append(UInt8(ascii: ":"))
        time.appendDigits(second / 60 % 60, width: 2)
        if seconds, second % 60 != 0 {
            time.append(UInt8(ascii: ":"))
            time.appendDigits(second % 60, width: 2)
        }
        return "\(DayDate(instant: date, timeZone: zone)) " + String(decoding: time, as: UTF8.self)
    }

    /// `2015-07-17 09:00 (America/New_York)`: ``text(_:zone:seconds:)`` naming the zone, for a
    /// message that stands alone.
    public static func named(_ date: Date, zone: TimeZone, seconds: Bool = false) -> String {
        "\(text(date, zone: zone, seconds: seconds)) (\(zone.identifier))"
    }
}
