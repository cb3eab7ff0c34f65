import Foundation
import GRDB
import Model

extension SharedStore {
    /// The highest record index stored for a stream of a source, or nil before its first import.
    public func cursor(source: DeviceSource, stream: String) throws(StoreError) -> Int64? {
        try read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT c.last_record_index FROM source_cursor c JOIN source s ON s.id = c.source_id
                    WHERE s.family = ? AND s.serial = ? AND c.stream = ?
                    """,
                arguments: [source.family, source.serial, stream])
        }
    }

    /// Glucose readings with `from ≤ time < to` (either bound may be omitted), ascending by time.
    public func glucose(from: Date? = nil, to: Date? = nil) throws(StoreError) -> [StoredGlucose] {
        var conditions = ["1"]
        var arguments = StatementArguments()
        if let from {
            conditions.append("g.time >= ?")
            arguments += [StoreTime.string(max(from, StoreTime.representable.lowerBound))]
        }
        if let to {
            conditions.append("g.time < ?")
            arguments += [StoreTime.string(min(to, StoreTime.representable.upperBound))]
        }
        let condition = conditions.joined(separator: " AND ")
        return try read { db in
            try GlucoseQuery.fetch(db, where: condition, orderBy: "g.time, g.id", arguments: arguments)
        }
    }

    /// Every log of `day`, each kind sorted by time ascending. A Day the store does not hold has no logs.
    public func logs(of day: DayDate) throws(StoreError) -> DayLogs {
        try read { db in
            var logs = DayLogs(day: day, glucose: [], insulin: [], meals: [], exercise: [], illness: [], stress: [])
            guard let dayID = try Int64.fetchOne(db, sql: "SELECT id FROM day WHERE date = ?", arguments: [day.description])
            else { return logs }
            logs.glucose = try GlucoseQuery.fetch(db, where: "g.day_id = ?", orderBy: "g.time, g.id", arguments: [dayID])
            logs.insulin = try Row.fetchAll(
                db, sql: "SELECT id, time, units FROM insulin WHERE day_id = ? ORDER BY time, id", arguments: [dayID]
            ).map { row in
                StoredInsulin(id: row[0], time: try Decode.instant(row, 1, "insulin.time"), units: row[2])
            }
            logs.meals = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, time, name, carbs_g, protein_g, fat_g, favourite_id
                    FROM meal WHERE day_id = ? ORDER BY time, id
                    """,
                arguments: [dayID]
            ).map { row in
                StoredMeal(
                    id: row[0], time: try Decode.instant(row, 1, "meal.time"), name: row[2],
                    carbs: row[3], protein: row[4], fat: row[5], favouriteID: row[6])
            }
            logs.exercise = try Row.fetchAll(
                db,
                sql: """
                    SELECT e.id, e.time, e.name, e.duration_seconds, e.intensity, e.favourite_id,
                           s.family, s.serial, e.device_record_key
                    FROM exercise e LEFT JOIN source s ON s.id = e.source_id
                    WHERE e.day_id = ? ORDER BY e.time, e.id
                    """,
                arguments: [dayID]
            ).map { row in
                StoredExercise(
                    id: row[0], time: try Decode.instant(row, 1, "exercise.time"), name: row[2],
                    durationSeconds: row[3], intensity: try Decode.value(row, 4, "exercise.intensity"),
                    favouriteID: row[5], sourceFamily: row[6], sourceSerial: row[7], recordKey: row[8])
            }
            logs.illness = try episodes(db, table: "illness", dayID: dayID)
            logs.stress = try episodes(db, table: "stress", dayID: dayID)
            return logs
        }
    }

    /// The `count` most recent Days (with all the traits in `filter`) and their summaries, newest first.
    ///
    /// Each summary is computed by SQLite from the Day's rows, through the `(day_id, time)` indexes.
    public func recentDays(_ count: Int, filter: DayFilter = []) throws(StoreError) -> [DaySummary] {
        try read { db in
            try Row.fetchAll(db, sql: DaySummaryQuery.sql(filter), arguments: [max(count, 0)]).map { row in
                DaySummary(
                    date: try Decode.day(row, 0, "day.date"), glucoseCount: row[1],
                    low: row[2], average: row[3], high: row[4],
                    hadHypo: row[5], hadHyper: row[6], hadExercise: row[7], isFavourite: row[8])
            }
        }
    }

    /// The `limit` most recent imports, newest first.
    public func importRuns(limit: Int) throws(StoreError) -> [ImportRun] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT r.id, s.family, s.serial, s.model, r.started_at, r.finished_at, r.mode, r.origin,
                           r.records_read, r.records_added, r.records_already_stored, r.records_skipped,
                           r.host_time, r.device_time, r.clock_offset_seconds, r.time_method,
                           r.events_json, r.notes_json
                    FROM import_run r JOIN source s ON s.id = r.source_id
                    ORDER BY r.id DESC LIMIT ?
                    """,
                arguments: [max(limit, 0)]
            ).map(Self.importRun)
        }
    }

    private func episodes(_ db: Database, table: String, dayID: Int64) throws -> [StoredEpisode] {
        try Row.fetchAll(
            db, sql: "SELECT id, start_time, end_time FROM \(table) WHERE day_id = ? ORDER BY start_time, id",
            arguments: [dayID]
        ).map { row in
            StoredEpisode(
                id: row[0], start: try Decode.instant(row, 1, "\(table).start_time"),
                end: try Decode.optionalInstant(row, 2, "\(table).end_time"))
        }
    }

    private static func importRun(_ row: Row) throws -> ImportRun {
        var clock = ClockReport(
            hostTime: try Decode.optionalInstant(row, 12, "import_run.host_time"),
            deviceTime: try Decode.optionalInstant(row, 13, "import_run.device_time"),
            method: try Decode.value(row, 15, "import_run.time_method"))
        clock.offsetSeconds = row[14]
        let decoder = JSONDecoder()
        let eventsJSON: String = row[16]
        let notesJSON: String = row[17]
        return ImportRun(
            id: row[0], source: DeviceSource(family: row[1], serial: row[2], model: row[3]),
            startedAt: try Decode.instant(row, 4, "import_run.started_at"),
            finishedAt: try Decode.instant(row, 5, "import_run.finished_at"),
            mode: row[6], origin: row[7], recordsRead: row[8], added: row[9], alreadyStored: row[10],
            skipped: row[11], clock: clock,
            events: try decoder.decode([ImportEvent].self, from: Data(eventsJSON.utf8)),
            notes: try decoder.decode([String].self, from: Data(notesJSON.utf8)))
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
               s.family, s.serial, g.device_record_key, g.device_time, g.device_display_time
        FROM glucose g CROSS JOIN day d ON d.id = g.day_id LEFT JOIN source s ON s.id = g.source_id
        WHERE \(condition) ORDER BY \(orderBy)
        """
    }

    static func fetch(
        _ db: Database, where condition: String, orderBy: String, arguments: StatementArguments
    ) throws -> [StoredGlucose] {
        let sql = sql(where: condition, orderBy: orderBy)
        return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map { row in
            StoredGlucose(
                id: row[0], time: try Decode.instant(row, 1, "glucose.time"), mgdl: row[2],
                unit: try Decode.value(row, 3, "glucose.unit"), tag: try Decode.value(row, 4, "glucose.tag"),
                flag: try Decode.optionalValue(row, 5, "glucose.flag"),
                kind: try Decode.value(row, 6, "glucose.kind"),
                trend: try Decode.optionalValue(row, 7, "glucose.trend"), noise: row[8],
                day: try Decode.day(row, 9, "day.date"), sourceFamily: row[10], sourceSerial: row[11],
                recordKey: row[12], deviceTime: row[13], displayTime: row[14])
        }
    }
}

/// The SQL of ``SharedStore/recentDays(_:filter:)``: the newest Days first through `day.date`'s
/// unique index, stopping after the limit; per Day, aggregates and `EXISTS` probes that search
/// the Day's rows through the `(day_id, …)` indexes.
enum DaySummaryQuery {
    static let hypo = "EXISTS (SELECT 1 FROM glucose g WHERE g.day_id = d.id AND g.tag IN ('hypo-l1', 'hypo-l2'))"
    static let hyper = "EXISTS (SELECT 1 FROM glucose g WHERE g.day_id = d.id AND g.tag IN ('hyper-l1', 'hyper-l2'))"
    static let exercise = "EXISTS (SELECT 1 FROM exercise e WHERE e.day_id = d.id)"

    static func sql(_ filter: DayFilter) -> String {
        var conditions: [String] = []
        if filter.contains(.hadHypo) { conditions.append(hypo) }
        if filter.contains(.hadHyper) { conditions.append(hyper) }
        if filter.contains(.hadExercise) { conditions.append(exercise) }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return """
            SELECT d.date,
                   (SELECT count(*) FROM glucose g WHERE g.day_id = d.id),
                   (SELECT min(g.mgdl) FROM glucose g WHERE g.day_id = d.id),
                   (SELECT avg(g.mgdl) FROM glucose g WHERE g.day_id = d.id),
                   (SELECT max(g.mgdl) FROM glucose g WHERE g.day_id = d.id),
                   \(hypo), \(hyper), \(exercise), d.favourite_id IS NOT NULL
            FROM day d \(whereClause)
            ORDER BY d.date DESC LIMIT ?
            """
    }
}
