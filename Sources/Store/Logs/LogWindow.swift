import Foundation
import GRDB

/// Which logs a fetch or a listener covers: those of one Day, or those between two instants.
public enum LogWindow: Sendable, Hashable {
    /// The logs linked to one Day.
    case day(DayDate)
    /// The logs with `from ≤ time < to` (an episode's start); a nil bound is open.
    case between(from: Date?, to: Date?)

    /// Every log.
    public static let everything = LogWindow.between(from: nil, to: nil)
}

extension SharedStore {
    /// The logs of one kind in `window`, ascending by time (an episode's start), then by id.
    ///
    /// Searched through the kind's `(day_id, time)` or time index.
    public func logs<Log: LogEntry>(_ type: Log.Type, in window: LogWindow) throws(StoreError) -> [Stored<Log>] {
        try read { db in try Self.fetchLogs(Log.self, in: window, db) }
    }

    static func fetchLogs<Log: LogEntry>(_ type: Log.Type, in window: LogWindow, _ db: Database) throws -> [Stored<Log>] {
        switch window {
        case .day(let day):
            guard let dayID = try dayID(day, db) else { return [] }
            return try fetchStored(Log.self, where: "t.day_id = ?", [dayID], db)
        case .between(let from, let to):
            let (bounds, arguments) = StoreTime.range("t.\(Log.kind.timeColumn)", from: from, to: to)
            return try fetchStored(Log.self, where: (["1"] + bounds).joined(separator: " AND "), arguments, db)
        }
    }

    /// Every log of `day`, each kind by time.
    static func fetchDayLogs(_ day: DayDate, _ db: Database) throws -> DayLogs {
        guard let dayID = try dayID(day, db) else {
            return DayLogs(day: day, glucose: [], insulin: [], meals: [], exercise: [], illness: [], stress: [])
        }
        func fetch<Log: LogEntry>(_ type: Log.Type) throws -> [Stored<Log>] {
            try fetchStored(Log.self, where: "t.day_id = ?", [dayID], db)
        }
        return DayLogs(
            day: day, glucose: try fetch(GlucoseLog.self), insulin: try fetch(InsulinLog.self),
            meals: try fetch(MealLog.self), exercise: try fetch(ExerciseLog.self),
            illness: try fetch(IllnessEpisode.self), stress: try fetch(StressEpisode.self))
    }

    /// The id of the `day` row of `day`, or nil when the store does not hold it.
    static func dayID(_ day: DayDate, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM day WHERE date = ?"), arguments: [day.description])
    }
}
