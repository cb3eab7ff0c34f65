import Foundation
import GRDB
import Model

extension SharedStore {
    /// The instant of the newest glucose reading of `kind`, or nil when the store holds none.
    public func latestGlucoseTime(kind: ReadingKind) throws(StoreError) -> Date? {
        try read { db in
            try String.fetchOne(db, sql: "SELECT max(time) FROM glucose WHERE kind = ?", arguments: [kind.rawValue])
                .flatMap(StoreTime.date)
        }
    }
}

extension DayDate {
    /// The Day `days` after this one (before it when negative).
    public func adding(days: Int) -> DayDate {
        let (year, month, day) = CivilDate.civil(fromDays: CivilDate.days(year: year, month: month, day: self.day) + Int64(days))
        return DayDate(year: year, month: month, day: day)!
    }
}
