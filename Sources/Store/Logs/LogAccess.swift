import Foundation
import GRDB
import Model

extension SharedStore {
    // MARK: - Adding

    /// Stores `log`, linked to the Day of its time (an episode's start) in the store's zone; the
    /// Day is created when missing. Returns the log as stored (its id, its Day, and values as
    /// the store keeps them: times to the millisecond, a glucose tag from the thresholds in force).
    ///
    /// - Throws: ``StoreError/invalidLog(kind:reason:)`` for values the schema refuses (nothing
    ///   is written); ``StoreError/locked(path:waitedSeconds:)`` and other store errors.
    @discardableResult
    public func add<Log: LogEntry>(_ log: Log) throws(StoreError) -> Stored<Log> {
        let zone = timeZone
        try Self.check(log, zone)
        return try write { db in try Self.write(log, id: nil, db, zone) }
    }

    // MARK: - Editing and removing

    /// Replaces the values of the log `id` with `log`, and links it to the Day of its new time
    /// (created when missing). The Day it leaves is kept, even when it holds nothing any more
    /// (see ``remove(_:)``). Returns the log as stored.
    ///
    /// - Throws: ``StoreError/notFound(kind:id:)``; ``StoreError/importedLogIsReadOnly(kind:id:source:)``
    ///   for a log imported from a device; ``StoreError/invalidLog(kind:reason:)``.
    @discardableResult
    public func update<Log: LogEntry>(_ id: LogID<Log>, with log: Log) throws(StoreError) -> Stored<Log> {
        let zone = timeZone
        try Self.check(log, zone)
        return try write { db in
            try Self.checkEditable(id, db)
            return try Self.write(log, id: id, db, zone)
        }
    }

    /// Writes back a stored log whose ``Stored/log`` was changed: `update(stored.id, with: stored.log)`.
    @discardableResult
    public func update<Log: LogEntry>(_ stored: Stored<Log>) throws(StoreError) -> Stored<Log> {
        try update(stored.id, with: stored.log)
    }

    /// Removes the log `id`.
    ///
    /// **The Day stays.** Removing the last log of a Day leaves the Day in the store, with no logs:
    /// the user may have made it a favourite, and another program may be adding to it. A Day
    /// without logs shows in ``recentDays(_:filter:)`` with a count of 0.
    ///
    /// - Throws: ``StoreError/notFound(kind:id:)``; ``StoreError/importedLogIsReadOnly(kind:id:source:)``
    ///   for a log imported from a device.
    public func remove<Log: LogEntry>(_ id: LogID<Log>) throws(StoreError) {
        try write { db in
            try Self.checkEditable(id, db)
            let favourite =
                Log.self is any FavouritableLog.Type
                ? try Int64.fetchOne(db, sql: "SELECT favourite_id FROM \(Log.kind.table) WHERE id = ?", arguments: [id.rawValue])
                : nil
            try db.execute(sql: "DELETE FROM \(Log.kind.table) WHERE id = ?", arguments: [id.rawValue])
            if let favourite { try Self.removeFavouriteIfUnused(favourite, db) }
        }
    }

    // MARK: - Reading

    /// The log with `id`.
    ///
    /// - Throws: ``StoreError/notFound(kind:id:)`` when no such log is stored.
    public func log<Log: LogEntry>(_ id: LogID<Log>) throws(StoreError) -> Stored<Log> {
        try read { db in try Self.fetchStored(id, db) }
    }

    /// The logs of one kind on `day`, ascending by time (an episode's start), then by id. A Day
    /// the store does not hold has none.
    ///
    /// Searched through the kind's `(day_id, time)` index.
    public func logs<Log: LogEntry>(_ type: Log.Type, of day: DayDate) throws(StoreError) -> [Stored<Log>] {
        try logs(Log.self, in: .day(day))
    }

    /// The logs of one kind with `from ≤ time < to` (an episode's start; either bound may be
    /// omitted), ascending by time, then by id — e.g. `logs(MealLog.self, from: a, to: b)` for
    /// the meals between two instants.
    ///
    /// Searched through the kind's time index.
    public func logs<Log: LogEntry>(_ type: Log.Type, from: Date? = nil, to: Date? = nil) throws(StoreError) -> [Stored<Log>] {
        try logs(Log.self, in: .between(from: from, to: to))
    }

    // MARK: - Shared by the write paths

    /// Checks a log before anything is written (instants in messages shown in `zone`).
    static func check<Log: LogEntry>(_ log: Log, _ zone: TimeZone) throws(StoreError) {
        guard StoreTime.representable.contains(log.time) else {
            throw .invalidLog(
                kind: Log.kind, reason: "its time (\(log.time.timeIntervalSince1970) s since 1970) is outside years 0001–9999")
        }
        try Log.columns.validate(log, zone)
    }

    /// Inserts `log` (`id` nil) or replaces the values of the log `id`, linked to the Day of its
    /// time; the one write path of every kind.
    static func write<Log: LogEntry>(_ log: Log, id: LogID<Log>?, _ db: Database, _ zone: TimeZone) throws -> Stored<Log> {
        if let episode = log as? any EpisodeEntry, episode.isOpen {
            try checkNoOpenEpisode(Log.kind, other: id?.rawValue, db, zone)
        }
        var days = DayResolver(timeZone: zone)
        let dayID = try days.id(of: days.date(of: log.time), in: db)
        let row = LogRow(id: id?.rawValue, dayID: dayID, log: log, thresholds: try thresholds(db))
        let stored: LogID<Log>
        if let id {
            try row.update(db)
            stored = id
        } else {
            try row.insert(db)
            stored = LogID(db.lastInsertedRowID)
        }
        if let favouritable = log as? any FavouritableLog {
            try linkFavourite(Log.kind, id: stored.rawValue, favouritable.isFavourite, name: favouritable.name, db)
        }
        return try fetchStored(stored, db)
    }

    /// Throws unless the log `id` exists and was entered in the app: a log imported from a
    /// device is read-only, since a re-import would bring the device's record back.
    static func checkEditable<Log: LogEntry>(_ id: LogID<Log>, _ db: Database) throws {
        let kind = Log.kind
        let sql =
            kind.hasProvenance
            ? "SELECT s.family, s.serial FROM \(kind.table) t LEFT JOIN source s ON s.id = t.source_id WHERE t.id = ?"
            : "SELECT NULL, NULL FROM \(kind.table) t WHERE t.id = ?"
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [id.rawValue]) else {
            throw StoreError.notFound(kind: kind, id: id.rawValue)
        }
        if let family: String = row[0] {
            let serial: String = row[1]
            throw StoreError.importedLogIsReadOnly(
                kind: kind, id: id.rawValue, source: DeviceSource(family: DeviceFamily(family), serial: serial).description)
        }
    }

    static func fetchStored<Log: LogEntry>(_ id: LogID<Log>, _ db: Database) throws -> Stored<Log> {
        guard let stored = try fetchStored(Log.self, where: "t.id = ?", [id.rawValue], db).first else {
            throw StoreError.notFound(kind: Log.kind, id: id.rawValue)
        }
        return stored
    }

    static func fetchStored<Log: LogEntry>(
        _ type: Log.Type, where condition: String, _ arguments: StatementArguments, orderBy: String? = nil,
        _ db: Database
    ) throws -> [Stored<Log>] {
        let sql = LogQuery.sql(Log.kind, where: condition, orderBy: orderBy)
        return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map { row in
            let family: String? = row[LogQuery.family]
            let serial: String? = row[LogQuery.serial]
            return Stored(
                id: LogID(row[LogQuery.id]), day: try Decode.day(row, LogQuery.day, "day.date"),
                log: try Log.columns.read(row),
                source: family.flatMap { family in
                    serial.map { DeviceSource(family: DeviceFamily(family), serial: $0, model: row[LogQuery.model]) }
                },
                recordKey: row[LogQuery.recordKey])
        }
    }
}

/// The one SELECT of each kind's logs, with their Day and source. `CROSS JOIN` keeps the log
/// table the outer loop, searched through its `(day_id, time)` or time index.
enum LogQuery {
    static let id = "gb_id"
    static let day = "gb_day"
    static let family = "gb_source_family"
    static let serial = "gb_source_serial"
    static let model = "gb_source_model"
    static let recordKey = "gb_record_key"

    static func sql(_ kind: LogKind, where condition: String, orderBy: String? = nil) -> String {
        let source =
            kind.hasProvenance
            ? "s.family AS \(family), s.serial AS \(serial), s.model AS \(model), t.device_record_key AS \(recordKey)"
            : "NULL AS \(family), NULL AS \(serial), NULL AS \(model), NULL AS \(recordKey)"
        let join = kind.hasProvenance ? "LEFT JOIN source s ON s.id = t.source_id" : ""
        return """
            SELECT t.*, t.id AS \(id), d.date AS \(day), \(source)
            FROM \(kind.table) t CROSS JOIN day d ON d.id = t.day_id \(join)
            WHERE \(condition) ORDER BY \(orderBy ?? "t.\(kind.timeColumn), t.id")
            """
    }
}
