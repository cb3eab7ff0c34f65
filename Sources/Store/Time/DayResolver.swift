import Foundation
import GRDB
import Model

/// Finds the `day` row of instants during one write, creating Days on demand.
///
/// Readings arrive mostly in time order, so the UTC interval of the last Day is kept and most
/// instants cost two comparisons; ids are cached per date for the life of the resolver.
struct DayResolver {
    let timeZone: TimeZone
    private var interval: (start: Double, end: Double, date: DayDate)?
    private var ids: [DayDate: Int64] = [:]
    /// Days this resolver inserted.
    private(set) var created: [DayDate: Int64] = [:]

    init(timeZone: TimeZone) {
        self.timeZone = timeZone
    }

    /// The local date of `instant` in the store's zone.
    mutating func date(of instant: Date) -> DayDate {
        let t = instant.timeIntervalSince1970
        if let interval, interval.start <= t, t < interval.end { return interval.date }
        let date = DayDate(instant: instant, timeZone: timeZone)
        // Keep the Day's UTC interval when its offset holds from midnight to midnight (not on a
        // day the clocks change).
        let offset = timeZone.secondsFromGMT(for: instant)
        let start = Double(CivilDate.days(year: date.year, month: date.month, day: date.day) * 86_400 - Int64(offset))
        let end = start + 86_400
        if timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: start)) == offset,
            timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: end - 1)) == offset
        {
            interval = (start, end, date)
        } else {
            interval = nil
        }
        return date
    }

    /// The id of the `day` row of `date`, inserted when missing.
    mutating func id(of date: DayDate, in db: Database) throws -> Int64 {
        if let id = ids[date] { return id }
        let text = date.description
        let id: Int64
        if let existing = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM day WHERE date = ?"), arguments: [text]) {
            id = existing
        } else {
            try db.cachedStatement(sql: "INSERT INTO day (date) VALUES (?)").execute(arguments: [text])
            id = db.lastInsertedRowID
            created[date] = id
        }
        ids[date] = id
        return id
    }
}
