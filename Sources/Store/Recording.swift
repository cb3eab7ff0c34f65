import Foundation
import GRDB
import CSQLiteConfig
import GRDBSQLite
import Model

extension SharedStore {
    /// Writes one import in one transaction.
    ///
    /// The batch is validated first (see ``StoreError/invalidReading(recordKey:reason:)``) and each
    /// reading's instant text and local date are worked out before the write lock is taken; then,
    /// in one transaction: the source is inserted or updated, Days are created on demand, the
    /// readings are inserted with tags from the thresholds in force (a reading whose source and
    /// record key are already stored is left as it is and counted as already stored), the cursors
    /// are raised (never lowered), and an `import_run` row keeps the counts. Any failure rolls
    /// everything back.
    package func save(_ batch: ImportBatch) throws(StoreError) -> ImportSummary {
        let validated = try ValidatedBatch(batch)
        let rows = GlucoseRows(validated.readings, timeZone: timeZone)
        return try writeImport { db in
            var writer = GlucoseImportWriter(db: db, days: rows.days)
            return try writer.write(validated, rows)
        }
    }

    /// Runs one import's `body` in a write transaction (BEGIN IMMEDIATE), as ``write(_:)`` does,
    /// with the connection at `synchronous = NORMAL` for that commit and back as it was after.
    ///
    /// The store is in WAL mode, where SQLite documents NORMAL as always consistent and a commit
    /// as durable across a crash or kill of the application whatever the setting; only a power
    /// loss or an operating-system crash may roll back the last commits, never half of one
    /// (https://sqlite.org/pragma.html#pragma_synchronous, https://sqlite.org/wal.html). An
    /// import lost that way is read again from the device or capture by the next import. The
    /// commit then writes the WAL without waiting for the disk, so the write lock is released
    /// sooner; the disk is synced at the next checkpoint.
    func writeImport<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try database.writeWithoutTransaction { db in
                // The level can only be changed outside a transaction.
                let level = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? 2
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                defer { try? db.execute(sql: "PRAGMA synchronous = \(level)") }
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                guard let result else { throw StoreError.database("the import's transaction ended without a result") }
                return result
            }
        } catch {
            throw StoreError(error, path: path, busyTimeout: busyTimeout)
        }
    }
}

/// What the rows of a batch's readings hold that needs no database, worked out before the write
/// lock is taken: each reading's instant in the store's format, the local date of its Day, and
/// the runs of readings that share a date, each written by one statement.
struct GlucoseRows {
    /// Each reading's instant in the store's format, its record key and its display time.
    var times = TextColumn()
    var keys = TextColumn()
    var displayTimes = TextColumn()
    /// The distinct local dates of the readings, in order of first appearance.
    var dates: [DayDate] = []
    /// Consecutive readings of one date, at most ``GlucoseRows/rowsPerStatement`` long, covering
    /// every reading in order; `date` is an index in `dates`.
    var runs: [(readings: Range<Int>, date: Int)] = []
    /// The resolver that found the dates, handed on to find their `day` rows.
    var days: DayResolver

    /// Rows one INSERT writes: 64 × 15 parameters, well under SQLite's limit of 32,766.
    static let rowsPerStatement = 64

    init(_ readings: [GlucoseReading], timeZone: TimeZone) {
        days = DayResolver(timeZone: timeZone)
        times.reserve(readings.count, bytesEach: StoreTime.length)
        keys.reserve(readings.count, bytesEach: 12)
        displayTimes.reserve(readings.count, bytesEach: 19)
        var positions: [DayDate: Int] = [:]
        for (i, reading) in readings.enumerated() {
            times.appendInstant(reading.time)
            keys.append(reading.recordKey)
            displayTimes.append(reading.displayTime)
            let date = days.date(of: reading.time)
            if let last = runs.last, dates[last.date] == date, last.readings.count < Self.rowsPerStatement {
                runs[runs.count - 1].readings = last.readings.lowerBound..<(i + 1)
                continue
            }
            let position: Int
            if let known = positions[date] {
                position = known
            } else {
                position = dates.count
                positions[date] = position
                dates.append(date)
            }
            runs.append((i..<(i + 1), position))
        }
    }
}

/// The SQL of one import, inside the write transaction.
struct GlucoseImportWriter {
    let db: Database
    var days: DayResolver
    /// The INSERT of each number of rows used so far, ready to take values.
    private var inserts: [Int: Statement] = [:]

    init(db: Database, days: DayResolver) {
        self.db = db
        self.days = days
    }

    mutating func write(_ validated: ValidatedBatch, _ rows: GlucoseRows) throws -> ImportSummary {
        let batch = validated.batch
        let thresholds = try SharedStore.thresholds(db)
        let sourceID = try ImportRows.upsertSource(batch.source, db)
        let runID = try ImportRows.insertRun(
            sourceID: sourceID, startedAt: batch.startedAt, mode: batch.mode, origin: batch.origin,
            recordsRead: batch.recordsRead, skipped: batch.recordsRead - batch.glucose.count, clock: batch.clock,
            events: batch.events, notes: batch.notes, db)
        let dayIDs = try rows.dates.map { date in try days.id(of: date, in: db) }
        // About 230 bytes of table and index pages per reading: a large import dirties more
        // pages than SQLite's default 2 MB cache holds, and a page spilled before the commit is
        // written to the WAL again each time it changes. Let the cache hold them all (KiB).
        try db.execute(sql: "PRAGMA cache_size = -\(max(2000, validated.readings.count / 4))")

        // Each run of readings of one Day is one INSERT of several rows; its change count says
        // how many were new (a row already stored is left by ON CONFLICT DO NOTHING), and the
        // Day got new rows when it is above zero. Values are bound through SQLite's C interface,
        // without an array of arguments per row; GRDB runs the statement (and tells observers).
        let readings = validated.readings
        var added = 0
        var datesWithNewRows = Set<Int>()
        try withoutTriggers { try rows.times.withText { times in try rows.keys.withText { keys in try rows.displayTimes.withText { displayTimes in
            for run in rows.runs {
                let insert = try insertStatement(rows: run.readings.count)
                let parameters = Parameters(statement: insert.sqliteStatement, db: db)
                parameters.reset()
                var index: Int32 = 1
                for i in run.readings {
                    let reading = readings[i]
                    try parameters.bind(dayIDs[run.date], at: index)
                    try parameters.bind(times(i), at: index + 1)
                    try parameters.bind(reading.mgdl, at: index + 2)
                    try parameters.bind(constant: Constants.unit(reading.unit), at: index + 3)
                    try parameters.bind(constant: Constants.tag(thresholds.storeTag(mgdl: reading.mgdl, unit: reading.unit)), at: index + 4)
                    try parameters.bind(constant: Constants.flag(reading.flag), at: index + 5)
                    try parameters.bind(constant: Constants.kind(reading.kind), at: index + 6)
                    try parameters.bind(constant: Constants.trend(reading.trend), at: index + 7)
                    try parameters.bind(reading.noise.map(Int64.init), at: index + 8)
                    try parameters.bind(sourceID, at: index + 9)
                    try parameters.bind(keys(i), at: index + 10)
                    try parameters.bind(reading.deviceTime, at: index + 11)
                    try parameters.bind(displayTimes(i), at: index + 12)
                    try parameters.bind(runID, at: index + 13)
                    try parameters.bind(reading.note, at: index + 14)
                    index += Int32(Self.columns)
                }
                try insert.execute()
                let changes = db.changesCount
                added += changes
                if changes > 0 { datesWithNewRows.insert(run.date) }
            }
        } } } }
        // A Day created for a reading that turned out to be stored already (under another time)
        // holds nothing: remove it.
        let daysWithNewRows = Set(datesWithNewRows.map { rows.dates[$0] })
        for (date, id) in days.created where !daysWithNewRows.contains(date) {
            try db.execute(sql: "DELETE FROM day WHERE id = ?", arguments: [id])
        }
        try raiseCursors(batch.cursors, sourceID: sourceID, runID: runID)

        let summary = ImportSummary(
            runID: runID,
            recordsRead: batch.recordsRead,
            added: added,
            alreadyStored: validated.readings.count - added + validated.repeats,
            skipped: validated.skipped,
            days: daysWithNewRows.sorted(),
            firstReading: batch.glucose.map(\.time).min(),
            lastReading: batch.glucose.map(\.time).max())
        try ImportRows.finish(runID, added: summary.added, alreadyStored: summary.alreadyStored, db)
        return summary
    }

    /// Values in one glucose row.
    static let columns = 15

    /// Runs `body` (the readings' INSERTs) with the connection's triggers off, and turns them on
    /// again. Glucose has one INSERT trigger, `glucose_sync_insert` (migration v8), and it acts
    /// only on rows without a `source_id`, the logs entered in the app; every row an import
    /// writes has one, so the trigger would do nothing for it, yet SQLite would still run the
    /// trigger's program for each row. Statements prepared meanwhile leave triggers out; SQLite
    /// prepares statements again when the setting changes
    /// (https://sqlite.org/c3ref/c_dbconfig_defensive.html). Days are inserted and removed
    /// outside `body`, so their change-log triggers still run.
    private func withoutTriggers<T>(_ body: () throws -> T) throws -> T {
        guard let connection = db.sqliteConnection else { return try body() }
        guard csqlite_enable_triggers(connection, 0) == 0 else {
            throw StoreError.database("SQLite did not turn triggers off for the import's readings")
        }
        defer { _ = csqlite_enable_triggers(connection, 1) }
        return try body()
    }

    /// `INSERT … VALUES (…), (…) … ON CONFLICT DO NOTHING` of `count` rows, its parameters
    /// marked as bound for GRDB (the caller binds every one before running it).
    private mutating func insertStatement(rows count: Int) throws -> Statement {
        if let known = inserts[count] { return known }
        let row = "(" + Array(repeating: "?", count: Self.columns).joined(separator: ", ") + ")"
        let statement = try db.cachedStatement(sql: """
            INSERT INTO glucose (day_id, time, mgdl, unit, tag, flag, kind, trend, noise, source_id,
                                 device_record_key, device_time, device_display_time, import_run_id, note)
            VALUES \(Array(repeating: row, count: count).joined(separator: ", "))
            ON CONFLICT (source_id, device_record_key) DO NOTHING
            """)
        statement.setUncheckedArguments(StatementArguments([DatabaseValue](repeating: .null, count: count * Self.columns)))
        inserts[count] = statement
        return statement
    }

    private func raiseCursors(_ cursors: [String: Int64], sourceID: Int64, runID: Int64) throws {
        let upsert = try db.cachedStatement(sql: """
            INSERT INTO source_cursor (source_id, stream, last_record_index, import_run_id)
            VALUES (?, ?, ?, ?)
            ON CONFLICT (source_id, stream) DO UPDATE
            SET last_record_index = excluded.last_record_index, import_run_id = excluded.import_run_id
            WHERE excluded.last_record_index > source_cursor.last_record_index
            """)
        for (stream, index) in cursors.sorted(by: { $0.key < $1.key }) {
            try upsert.execute(arguments: [sourceID, stream, index, runID])
        }
    }
}

/// Binds values to the parameters of a prepared statement through SQLite's C interface (text is
/// copied by SQLite), leaving GRDB to run the statement.
private struct Parameters {
    let statement: SQLiteStatement
    let db: Database
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Makes the statement ready for new values (SQLite refuses them once it has run). Its
    /// result is that of the previous run, already reported by GRDB.
    func reset() {
        sqlite3_reset(statement)
    }

    func bind(_ value: Int64?, at index: Int32) throws {
        try check(value.map { sqlite3_bind_int64(statement, index, $0) } ?? sqlite3_bind_null(statement, index))
    }

    func bind(_ value: Double, at index: Int32) throws {
        try check(sqlite3_bind_double(statement, index, value))
    }

    /// Binds NUL-terminated text that lives as long as the process, without a copy; nil binds NULL.
    func bind(constant text: UnsafePointer<CChar>?, at index: Int32) throws {
        guard let text else { return try check(sqlite3_bind_null(statement, index)) }
        try check(sqlite3_bind_text(statement, index, text, -1, nil))
    }

    /// Binds UTF-8 bytes that stay in place until the statement has run, without a copy; nil
    /// binds NULL.
    func bind(_ bytes: UnsafeBufferPointer<UInt8>?, at index: Int32) throws {
        guard let bytes else { return try check(sqlite3_bind_null(statement, index)) }
        guard let start = bytes.baseAddress, !bytes.isEmpty else {
            return try check(sqlite3_bind_text(statement, index, "", 0, Self.transient))
        }
        let code = start.withMemoryRebound(to: CChar.self, capacity: bytes.count) { text in
            sqlite3_bind_text(statement, index, text, Int32(bytes.count), nil)
        }
        try check(code)
    }

    func bind(_ value: String?, at index: Int32) throws {
        guard var value else { return try check(sqlite3_bind_null(statement, index)) }
        let code = value.withUTF8 { bytes in
            guard let start = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_text(statement, index, "", 0, Self.transient)
            }
            return start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(statement, index, $0, Int32(bytes.count), Self.transient)
            }
        }
        try check(code)
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage)
        }
    }
}

/// NUL-terminated copies of the names of one kind of glucose value (units, tags, flags, kinds,
/// trends), made once and kept for the life of the process; found by case, without hashing.
/// Sendable: nothing is written after `init`, and the text the pointers point at never changes.
private struct ConstantText<Name: CaseIterable & RawRepresentable & Equatable>: @unchecked Sendable where Name.RawValue == String {
    private let pointers: [(name: Name, text: UnsafePointer<CChar>)]

    init() {
        pointers = Name.allCases.map { ($0, UnsafePointer(strdup($0.rawValue)!)) }
    }

    func callAsFunction(_ name: Name?) -> UnsafePointer<CChar>? {
        guard let name else { return nil }
        return pointers.first { $0.name == name }?.text
    }
}

/// The glucose values bound as constant text.
private enum Constants {
    static let unit = ConstantText<GlucoseUnit>()
    static let tag = ConstantText<GlucoseTag>()
    static let flag = ConstantText<RangeFlag>()
    static let kind = ConstantText<ReadingKind>()
    static let trend = ConstantText<Trend>()
}

/// One text value per row (or none), their UTF-8 bytes kept end to end in one array, so that a
/// statement can be given them in place.
struct TextColumn {
    private var bytes: [UInt8] = []
    private var ranges: [Range<Int>?] = []

    mutating func reserve(_ rows: Int, bytesEach: Int) {
        bytes.reserveCapacity(rows * bytesEach)
        ranges.reserveCapacity(rows)
    }

    mutating func append(_ text: String?) {
        guard let text else { return ranges.append(nil) }
        let start = bytes.count
        bytes.append(contentsOf: text.utf8)
        ranges.append(start..<bytes.count)
    }

    /// Appends `date` in the store's format (``StoreTime``), written in place.
    mutating func appendInstant(_ date: Date) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: StoreTime.length))
        bytes.withUnsafeMutableBufferPointer { all in
            StoreTime.write(date, to: UnsafeMutableBufferPointer(rebasing: all[start...]))
        }
        ranges.append(start..<bytes.count)
    }

    /// Calls `body` with a function giving row `i`'s bytes (nil for none), valid during the call.
    func withText<T>(_ body: ((Int) -> UnsafeBufferPointer<UInt8>?) throws -> T) rethrows -> T {
        try bytes.withUnsafeBufferPointer { all in
            try body { row in ranges[row].map { UnsafeBufferPointer(rebasing: all[$0]) } }
        }
    }
}
