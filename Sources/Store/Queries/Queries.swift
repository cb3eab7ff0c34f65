import Foundation
import GRDB
import Model

/// A glucose row as the store holds it.
public struct StoredGlucose: Sendable, Equatable {
    public var id: Int64
    public var time: Date
    public var mgdl: Double
    /// The unit the value was reported in.
    public var unit: GlucoseUnit
    public var tag: GlucoseTag
    public var flag: RangeFlag?
    public var kind: ReadingKind
    public var trend: Trend?
    public var noise: Int?
    public var day: DayDate
    /// The device the reading came from; nil for a reading entered in the app.
    public var sourceFamily: String?
    public var sourceSerial: String?
    public var recordKey: String?
    public var deviceTime: Int64?
    public var displayTime: String?
    /// What the device recorded with the reading (a meter's meal or activity markers).
    public var note: String?
}

/// Every log of one Day, each kind sorted by time ascending (an episode's start), then by id.
public struct DayLogs: Sendable, Equatable {
    public var day: DayDate
    public var glucose: [Stored<GlucoseLog>]
    public var insulin: [Stored<InsulinLog>]
    public var meals: [Stored<MealLog>]
    public var exercise: [Stored<ExerciseLog>]
    public var illness: [Stored<IllnessEpisode>]
    public var stress: [Stored<StressEpisode>]
}

extension SharedStore {
    /// The highest record index stored for a stream of a source, or nil before its first import.
    package func cursor(source: DeviceSource, stream: RecordStream) throws(StoreError) -> Int64? {
        try read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT c.last_record_index FROM source_cursor c JOIN source s ON s.id = c.source_id
                    WHERE s.family = ? AND s.serial = ? AND c.stream = ?
                    """,
                arguments: [source.family.rawValue, source.serial, stream.rawValue])
        }
    }

    /// Every stream's cursor stored for a source: the highest record index stored per stream.
    package func cursors(source: DeviceSource) throws(StoreError) -> RecordCursors {
        try read { db in
            var cursors = RecordCursors()
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT c.stream, c.last_record_index FROM source_cursor c JOIN source s ON s.id = c.source_id
                    WHERE s.family = ? AND s.serial = ?
                    """,
                arguments: [source.family.rawValue, source.serial])
            {
                cursors.raise(RecordStream(row[0] as String), to: row[1])
            }
            return cursors
        }
    }

    /// Every source's cursors, keyed by the source's family and serial (its model left out).
    package func cursorsBySource() throws(StoreError) -> [DeviceSource: RecordCursors] {
        try read { db in
            var cursors: [DeviceSource: RecordCursors] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT s.family, s.serial, c.stream, c.last_record_index FROM source_cursor c JOIN source s ON s.id = c.source_id
                    """)
            {
                cursors[DeviceSource(family: DeviceFamily(row[0] as String), serial: row[1]), default: [:]].raise(
                    RecordStream(row[2] as String), to: row[3])
            }
            return cursors
        }
    }

    /// Glucose readings with `from ≤ time < to` (either bound may be omitted), ascending by time.
    public func glucose(from: Date? = nil, to: Date? = nil) throws(StoreError) -> [StoredGlucose] {
        let (bounds, arguments) = StoreTime.range("g.time", from: from, to: to)
        let condition = (["1"] + bounds).joined(separator: " AND ")
        return try read { db in
            try GlucoseQuery.fetch(db, where: condition, orderBy: "g.time, g.id", arguments: arguments)
        }
    }

    /// The instant of the newest glucose reading of `kind`, or nil when the store holds none.
    public func latestGlucoseTime(kind: ReadingKind) throws(StoreError) -> Date? {
        try read { db in
            try String.fetchOne(db, sql: "SELECT max(time) FROM glucose WHERE kind = ?", arguments: [kind.rawValue])
                .flatMap(StoreTime.date)
        }
    }

    /// Every log of `day`, each kind sorted by time ascending (an episode's start), then by id,
    /// read in one transaction. A Day the store does not hold has no logs.
    public func logs(of day: DayDate) throws(StoreError) -> DayLogs {
        try read { db in try Self.fetchDayLogs(day, db) }
    }

    /// The `count` most recent Days (with all the traits in `filter`) and their summaries, newest first.
    ///
    /// Each summary is computed by SQLite from the Day's rows, through indexes (see
    /// `docs/store-schema.md`): glucose low/average/high and count, the count of each tag (time
    /// in range), food totals, and whether the Day had a hypo, a hyper, exercise, or a stress or
    /// illness episode overlapping it in the store's zone. Rows are never loaded into memory.
    public func recentDays(_ count: Int, filter: DayFilter = []) throws(StoreError) -> [DaySummary] {
        try read { db in try Self.fetchSummaries(filter, limit: max(count, 0), db) }
    }

    /// The summary of `day`, or nil when the store does not hold it.
    public func summary(of day: DayDate) throws(StoreError) -> DaySummary? {
        try read { db in try Self.fetchSummaries([], from: day, through: day, limit: 1, db).first }
    }

    /// The summaries of the Days with `from ≤ date ≤ through` (a nil bound is open) and all the
    /// traits in `filter`, newest first, at most `limit` of them (all when `limit` is nil).
    static func fetchSummaries(
        _ filter: DayFilter, from: DayDate? = nil, through: DayDate? = nil, limit: Int?, _ db: Database
    ) throws -> [DaySummary] {
        var bounds: [String] = []
        var arguments = StatementArguments()
        if let from {
            bounds.append("d.date >= ?")
            arguments += [from.description]
        }
        if let through {
            bounds.append("d.date <= ?")
            arguments += [through.description]
        }
        arguments += [limit ?? -1]
        return try Row.fetchAll(db.cachedStatement(sql: DaySummaryQuery.sql(filter, bounds: bounds)), arguments: arguments)
            .map(DaySummaryQuery.summary)
    }
}

/// The one SELECT of glucose rows, with their Day and source.
///
/// `CROSS JOIN` keeps glucose the outer loop, searched through `glucose_by_time` or
/// `glucose_by_day`: without it SQLite may choose to loop over Days instead and sort afterwards.
enum GlucoseQuery {
    static func sql(where condition: String, orderBy: String) -> String {
        """
        SELECT g.id, g.time, g.mgdl, g.unit, g.tag, g.flag, g.kind, g.trend, g.noise, d.date,
               s.family, s.serial, g.device_record_key, g.device_time, g.device_display_time, g.note
        FROM glucose g CROSS JOIN day d ON d.id = g.day_id LEFT JOIN source s ON s.id = g.source_id
        WHERE \(condition) ORDER BY \(orderBy)
        """
    }

    static func fetch(
        _ db: Database, where condition: String, orderBy: String, arguments: StatementArguments
    ) throws -> [StoredGlucose] {
        let sql = sql(where: condition, orderBy: orderBy)
        // Each row read in place as SQLite steps (a cursor), not copied first into a row of its own.
        var readings: [StoredGlucose] = []
        let cursor = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        while let row = try cursor.next() {
            readings.append(
                StoredGlucose(
                    id: row[0], time: try Decode.instant(row, 1, "glucose.time"), mgdl: row[2],
                    unit: try Decode.value(row, 3, "glucose.unit"), tag: try Decode.value(row, 4, "glucose.tag"),
                    flag: try Decode.optionalValue(row, 5, "glucose.flag"),
                    kind: try Decode.value(row, 6, "glucose.kind"),
                    trend: try Decode.optionalValue(row, 7, "glucose.trend"), noise: row[8],
                    day: try Decode.day(row, 9, "day.date"), sourceFamily: row[10], sourceSerial: row[11],
                    recordKey: row[12], deviceTime: row[13], displayTime: row[14], note: row[15]))
        }
        return readings
    }
}

/// The SQL of ``SharedStore/recentDays(_:filter:)``: the newest Days first through `day.date`'s
/// unique index, stopping after the limit; per Day, aggregates and `EXISTS` probes that search
/// the Day's rows through the `(day_id, …)` indexes. Glucose is read from the covering index
/// `glucose_summary_by_day (day_id, tag, mgdl)` alone: the count of each tag, and the low,
/// average and high. Episodes are found through `…_by_time (start_time)`: those starting before
/// the end of the Day and not ended before its start.
enum DaySummaryQuery {
    static let hypo = "EXISTS (SELECT 1 FROM glucose g WHERE g.day_id = d.id AND g.tag IN ('hypo-l1', 'hypo-l2'))"
    static let hyper = "EXISTS (SELECT 1 FROM glucose g WHERE g.day_id = d.id AND g.tag IN ('hyper-l1', 'hyper-l2'))"
    static let exercise = "EXISTS (SELECT 1 FROM exercise e WHERE e.day_id = d.id)"
    static let stress = overlapping("stress")
    static let illness = overlapping("illness")

    /// An episode of `table` overlapping the Day `d` in the store's zone: started before the Day
    /// ends, and open, or ended after the Day starts, or started within the Day (a zero-length
    /// episode).
    private static func overlapping(_ table: String) -> String {
        let zone = "(SELECT time_zone FROM store_config WHERE id = 1)"
        let start = "glucobridge_day_start(d.date, \(zone))"
        let end = "glucobridge_day_start(date(d.date, '+1 day'), \(zone))"
        return """
            EXISTS (SELECT 1 FROM \(table) x WHERE x.start_time < \(end)
                    AND (x.end_time IS NULL OR x.end_time > \(start) OR x.start_time >= \(start)))
            """
    }

    /// The tags in the order of the columns of ``sql(_:)``.
    static let tags: [GlucoseTag] = [.hypoLevel2, .hypoLevel1, .inRange, .hyperLevel1, .hyperLevel2]

    /// `bounds` are further conditions on `d`, with their `?` placeholders before the limit's.
    static func sql(_ filter: DayFilter, bounds: [String] = []) -> String {
        var conditions = bounds
        if filter.contains(.hadHypo) { conditions.append(hypo) }
        if filter.contains(.hadHyper) { conditions.append(hyper) }
        if filter.contains(.hadExercise) { conditions.append(exercise) }
        if filter.contains(.hadStress) { conditions.append(stress) }
        if filter.contains(.hadIllness) { conditions.append(illness) }
        if filter.contains(.isFavourite) { conditions.append("d.favourite_id IS NOT NULL") }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let tagCounts = tags.map { "(SELECT count(*) FROM glucose g WHERE g.day_id = d.id AND g.tag = '\($0.rawValue)')" }
        return """
            SELECT d.date,
                   (SELECT min(g.mgdl) FROM glucose g WHERE g.day_id = d.id),
                   (SELECT avg(g.mgdl) FROM glucose g WHERE g.day_id = d.id),
                   (SELECT max(g.mgdl) FROM glucose g WHERE g.day_id = d.id),
                   \(hypo), \(hyper), \(exercise), d.favourite_id IS NOT NULL,
                   \(tagCounts.joined(separator: ", ")),
                   (SELECT total(m.carbs_g) FROM meal m WHERE m.day_id = d.id),
                   (SELECT total(m.protein_g) FROM meal m WHERE m.day_id = d.id),
                   (SELECT total(m.fat_g) FROM meal m WHERE m.day_id = d.id),
                   \(stress), \(illness)
            FROM day d \(whereClause)
            ORDER BY d.date DESC LIMIT ?
            """
    }

    static func summary(_ row: Row) throws -> DaySummary {
        var counts: [GlucoseTag: Int] = [:]
        for (offset, tag) in tags.enumerated() { counts[tag] = row[8 + offset] }
        return DaySummary(
            date: try Decode.day(row, 0, "day.date"), glucoseCount: counts.values.reduce(0, +),
            low: row[1], average: row[2], high: row[3],
            hadHypo: row[4], hadHyper: row[5], hadExercise: row[6], isFavourite: row[7],
            tagCounts: counts, carbs: row[13], protein: row[14], fat: row[15],
            hadStress: row[16], hadIllness: row[17])
    }

    /// `glucobridge_day_start(date, zone)`: the first instant (store format) of the Day `date`
    /// in the zone `zone`; NULL for text that is not a date or a zone. Registered on every
    /// connection of the store, each with its own cache: a summary asks for the same few Days
    /// once per episode it looks at.
    static func dayStartFunction() -> DatabaseFunction {
        let cache = DayStartCache()
        return DatabaseFunction("glucobridge_day_start", argumentCount: 2, pure: true) { values in
            guard let text = String.fromDatabaseValue(values[0]),
                let identifier = String.fromDatabaseValue(values[1])
            else { return nil }
            return cache.start(of: text, zone: identifier)
        }
    }
}

/// The day starts computed by one connection's `glucobridge_day_start`.
private final class DayStartCache: @unchecked Sendable {
    private let lock = NSLock()
    private var zones: [String: TimeZone] = [:]
    private var starts: [String: String] = [:]

    func start(of date: String, zone identifier: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        let key = identifier + " " + date
        if let start = starts[key] { return start }
        guard let day = DayDate(date) else { return nil }
        let zone: TimeZone
        if let known = zones[identifier] {
            zone = known
        } else {
            guard let parsed = TimeZone(identifier: identifier) else { return nil }
            zone = parsed
            zones[identifier] = parsed
        }
        if starts.count >= 4096 { starts.removeAll(keepingCapacity: true) }
        let start = StoreTime.string(day.start(in: zone))
        starts[key] = start
        return start
    }
}
