import CSQLiteConfig
import Foundation
import GRDB
import GRDBSQLite
import Model
import Pipeline

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
    /// with the connection at `synchronous = FULL` for that commit and back as it was after.
    ///
    /// The store is in WAL mode, where a commit at NORMAL survives a crash or kill of the
    /// application but not a power loss or an operating-system crash: its frames wait in the page
    /// cache until a checkpoint syncs the WAL. At FULL the commit syncs the WAL before it returns
    /// (https://sqlite.org/pragma.html#pragma_synchronous, https://sqlite.org/wal.html), so an
    /// import that reports success is on the disk; a power cut before that leaves the import
    /// absent, never half of it (the lab's `power-loss` scenario). The sync costs one `fsync` of
    /// the WAL while the write lock is held; a large import's commit checkpoints at once anyway,
    /// which syncs the same frames.
    package func writeImport<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try database.writeWithoutTransaction { db in
                // The level can only be changed outside a transaction.
                let level = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? 2
                try db.execute(sql: "PRAGMA synchronous = FULL")
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
    /// Consecutive readings of one date, covering every reading in order: one INSERT each.
    var runs: [Range<Int>] = []
    /// The date of each run, an index in `dates`.
    var runDates: [Int] = []
    /// The resolver that found the dates, handed on to find their `day` rows.
    var days: DayResolver

    init(_ readings: [GlucoseReading], timeZone: TimeZone) {
        days = DayResolver(timeZone: timeZone)
        times = TextColumn(instants: readings)
        keys.reserve(readings.count, bytesEach: 12)
        displayTimes.reserve(readings.count, bytesEach: 19)
        var positions: [DayDate: Int] = [:]
        var wallClocks = CivilDate.WallClockWriter()
        // Each reading's fields read in place, not a copy of each reading.
        readings.withUnsafeBufferPointer { readings in
            for i in readings.indices {
                keys.append(readings[i].recordKey)
                displayTimes.append(readings[i].displayClock, &wallClocks)
                let date = days.date(of: readings[i].time)
                if let last = runDates.last, dates[last] == date {
                    runs[runs.count - 1] = runs[runs.count - 1].lowerBound..<(i + 1)
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
                runs.append(i..<(i + 1))
                runDates.append(position)
            }
        }
    }

    /// Calls `body` with the rows `glucobridge_import_rows` gives SQLite (``ImportRowTable``),
    /// valid during the call.
    func withSource<T>(_ readings: [GlucoseReading], thresholds: GlucoseThresholds, _ body: (ImportRowSource) throws -> T) rethrows -> T {
        try times.withBytes { times in
            try keys.withBytes { keys in
                try displayTimes.withBytes { displayTimes in
                    try readings.withUnsafeBufferPointer { readings in
                        try body(
                            ImportRowSource(
                                readings: readings, thresholds: thresholds, runs: runs, times: times, keys: keys, displayTimes: displayTimes))
                    }
                }
            }
        }
    }
}

/// The SQL of one import, inside the write transaction.
struct GlucoseImportWriter {
    let db: Database
    var days: DayResolver

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

        // Each run of readings of one Day is one INSERT … SELECT from `glucobridge_import_rows`;
        // its change count says how many were new (a row already stored is left by ON CONFLICT
        // DO NOTHING), and the Day got new rows when it is above zero. SQLite reads the values
        // from the readings itself; GRDB runs the statement (and tells observers).
        var added = 0
        var datesWithNewRows = Set<Int>()
        // Nothing to insert (a re-import of pages already stored): no statement to prepare, and
        // the triggers are left as they are.
        if !rows.runs.isEmpty {
            try withoutTriggers {
                let shared = validated.readings.withUnsafeBufferPointer(SharedColumns.init)
                let insert = try db.makeStatement(sql: Self.insertSQL(shared))
                insert.setUncheckedArguments(StatementArguments([DatabaseValue](repeating: .null, count: 5 + shared.count)))
                let parameters = Parameters(statement: insert.sqliteStatement, db: db)
                try rows.withSource(validated.readings, thresholds: thresholds) { source in
                    let pointer = Unmanaged.passUnretained(source).toOpaque()
                    try withExtendedLifetime(source) {
                        for (run, date) in rows.runDates.enumerated() {
                            parameters.reset()
                            try parameters.bind(pointer: pointer, at: 1)
                            try parameters.bind(Int64(run), at: 2)
                            try parameters.bind(dayIDs[date], at: 3)
                            try parameters.bind(sourceID, at: 4)
                            try parameters.bind(runID, at: 5)
                            try shared.bind(parameters, from: 6)
                            try insert.execute()
                            let changes = db.changesCount
                            added += changes
                            if changes > 0 { datesWithNewRows.insert(date) }
                        }
                    }
                }
            }
        }
        // A Day created for a reading that turned out to be stored already (under another time)
        // holds nothing: remove it.
        let daysWithNewRows = Set(datesWithNewRows.map { rows.dates[$0] })
        for (date, id) in days.created where !daysWithNewRows.contains(date) {
            try db.execute(sql: "DELETE FROM day WHERE id = ?", arguments: [id])
        }
        try db.raiseSourceCursors(batch.cursors, sourceID: sourceID, runID: runID)

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

    /// One run's readings into `glucose`: ?1 the ``ImportRowSource``, ?2 the run, ?3 its Day,
    /// ?4 the source, ?5 the import run, then from ?6 the values of `shared`'s columns, in the
    /// order of ``SharedColumns/Column``. (`WHERE true` tells SQLite's parser that `ON CONFLICT`
    /// is the upsert's, not a join's: https://sqlite.org/lang_upsert.html#parsing_ambiguity.)
    static func insertSQL(_ shared: SharedColumns) -> String {
        var parameter = 5
        let values = GlucoseImportColumns.Reading.allCases.map { column -> String in
            guard let sharedColumn = SharedColumns.Column(column), shared.contains(sharedColumn) else { return column.name }
            parameter += 1
            return "?\(parameter)"
        }
        let columns = GlucoseImportColumns.perRun + GlucoseImportColumns.Reading.allCases.map(\.name)
        return """
            INSERT INTO glucose (\(columns.joined(separator: ", ")))
            SELECT ?3, ?4, ?5, \(values.joined(separator: ", "))
            FROM \(ImportRowTable.name)(?1, ?2) WHERE true
            ON CONFLICT (source_id, device_record_key) DO NOTHING
            """
    }
}

/// The columns whose value every reading of a batch shares: most often all of a batch has one
/// unit and one kind, and no flag, noise or note. The INSERT binds each of them once instead of
/// naming the table function's column, which SQLite would ask for on every row.
struct SharedColumns {
    /// The columns that may be shared, in the order their parameters follow the INSERT's own
    /// (the order of ``GlucoseImportColumns/Reading``).
    enum Column: CaseIterable {
        case unit, flag, kind, noise, note

        /// The shareable column that `column` is, if it is one.
        init?(_ column: GlucoseImportColumns.Reading) {
            switch column {
            case .unit: self = .unit
            case .flag: self = .flag
            case .kind: self = .kind
            case .noise: self = .noise
            case .note: self = .note
            case .time, .mgdl, .tag, .trend, .deviceRecordKey, .deviceTime, .deviceDisplayTime: return nil
            }
        }
    }

    private var unit: GlucoseUnit?
    private var flag: RangeFlag??
    private var kind: ReadingKind?
    private var noise: Int??
    private var note: String??

    /// The columns `readings` share; their fields are read in place, not each reading copied.
    init(_ readings: UnsafeBufferPointer<GlucoseReading>) {
        guard !readings.isEmpty else { return }
        unit = readings[0].unit
        flag = .some(readings[0].flag)
        kind = readings[0].kind
        noise = .some(readings[0].noise)
        note = .some(readings[0].note)
        for i in readings.indices.dropFirst() {
            if unit != readings[i].unit { unit = nil }
            if flag != .some(readings[i].flag) { flag = nil }
            if kind != readings[i].kind { kind = nil }
            if noise != .some(readings[i].noise) { noise = nil }
            if note != .some(readings[i].note) { note = nil }
        }
    }

    func contains(_ column: Column) -> Bool {
        switch column {
        case .unit: unit != nil
        case .flag: flag != nil
        case .kind: kind != nil
        case .noise: noise != nil
        case .note: note != nil
        }
    }

    /// How many columns are shared: parameters after the INSERT's own five.
    var count: Int { Column.allCases.filter(contains).count }

    /// Binds the shared columns' values, the first at `index`.
    fileprivate func bind(_ parameters: Parameters, from index: Int32) throws {
        var index = index
        if let unit {
            try parameters.bind(Constants.unit(unit), at: index)
            index += 1
        }
        if let flag {
            try parameters.bind(Constants.flag(flag), at: index)
            index += 1
        }
        if let kind {
            try parameters.bind(Constants.kind(kind), at: index)
            index += 1
        }
        if let noise {
            try parameters.bind(noise.map(Int64.init), at: index)
            index += 1
        }
        if let note {
            try parameters.bind(note, at: index)
        }
    }
}

/// Binds values to the parameters of a prepared statement through SQLite's C interface,
/// leaving GRDB to run the statement.
private struct Parameters {
    let statement: SQLiteStatement
    let db: Database

    /// Makes the statement ready for new values (SQLite refuses them once it has run). Its
    /// result is that of the previous run, already reported by GRDB.
    func reset() {
        sqlite3_reset(statement)
    }

    func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(statement, index, value))
    }

    func bind(_ value: Int64?, at index: Int32) throws {
        guard let value else { return try check(sqlite3_bind_null(statement, index)) }
        try bind(value, at: index)
    }

    /// Binds a constant text (its bytes live as long as the process) or NULL.
    func bind(_ text: ConstantTextValue, at index: Int32) throws {
        guard let pointer = text.pointer else { return try check(sqlite3_bind_null(statement, index)) }
        try check(sqlite3_bind_text(statement, index, pointer, text.count, nil))
    }

    /// Binds a text, which SQLite copies, or NULL. Its length is given, so that a NUL inside it
    /// is kept.
    func bind(_ text: String?, at index: Int32) throws {
        guard let text else { return try check(sqlite3_bind_null(statement, index)) }
        try check(sqlite3_bind_text(statement, index, text, Int32(text.utf8.count), Constants.transient))
    }

    /// Binds an ``ImportRowSource`` for `glucobridge_import_rows`, which only SQL functions that
    /// ask for its type see (https://sqlite.org/bindptr.html).
    func bind(pointer: UnsafeMutableRawPointer, at index: Int32) throws {
        try check(sqlite3_bind_pointer(statement, index, pointer, ImportRowTable.pointerType, nil))
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage)
        }
    }
}

/// One text value per row (or none), their UTF-8 bytes kept end to end in one array, so that a
/// statement can be given them in place.
struct TextColumn {
    private var bytes: [UInt8] = []
    private var ranges: [Range<Int>?] = []
    /// Whether each text is followed by a NUL byte (and has none inside): SQLite is then told
    /// so, and a function that reads the text (the `GLOB` of `glucose.time`'s CHECK) reads it in
    /// place instead of copying it into memory of its own to add the terminator
    /// (https://sqlite.org/c3ref/result_blob.html: a negative length reads up to the first NUL).
    private var terminated = false

    mutating func reserve(_ rows: Int, bytesEach: Int) {
        bytes.reserveCapacity(rows * bytesEach)
        ranges.reserveCapacity(rows)
    }

    init() {}

    /// The readings' instants in the store's format (``StoreTime``), each followed by a NUL,
    /// written in place; an instant on the same UTC day as the one before it takes that one's
    /// date.
    init(instants readings: [GlucoseReading]) {
        let length = StoreTime.length
        let stride = length + 1
        bytes = [UInt8](unsafeUninitializedCapacity: readings.count * stride) { buffer, count in
            var previous = Int64.min
            for (i, reading) in readings.enumerated() {
                let text = UnsafeMutableBufferPointer(rebasing: buffer[(i * stride)...])
                let (milliseconds, day) = StoreTime.day(of: reading.time)
                if day == previous {
                    text.baseAddress!.initialize(from: text.baseAddress! - stride, count: 11)
                    StoreTime.writeTimeOfDay(Int(milliseconds - day * 86_400_000), to: text)
                } else {
                    StoreTime.write(reading.time, to: text)
                    previous = day
                }
                text[length] = 0
            }
            count = readings.count * stride
        }
        ranges = (0..<readings.count).map { $0 * stride..<($0 * stride + length) }
        terminated = true
    }

    mutating func append(_ text: String?) {
        guard let text else { return ranges.append(nil) }
        let start = bytes.count
        if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: text.utf8)
        }
        ranges.append(start..<bytes.count)
    }

    /// Appends a display time: a driver's wall-clock seconds written by `writer` straight into
    /// the column, with no string made.
    mutating func append(_ display: DisplayTime, _ writer: inout CivilDate.WallClockWriter) {
        guard let seconds = display.wallClock else { return append(display.text) }
        let start = bytes.count
        writer.append(seconds, to: &bytes)
        ranges.append(start..<bytes.count)
    }

    /// The column's bytes in place and each row's range of them.
    struct Bytes {
        let all: UnsafeBufferPointer<UInt8>
        let ranges: [Range<Int>?]
        let terminated: Bool

        /// Gives SQLite row `row`'s text (NULL for none) as a column result, without a copy.
        func result(_ row: Int, _ context: OpaquePointer) {
            guard let range = ranges[row] else { return sqlite3_result_null(context) }
            guard let start = all.baseAddress else { return sqlite3_result_text(context, "", 0, Constants.transient) }
            UnsafeRawPointer(start + range.lowerBound).withMemoryRebound(to: CChar.self, capacity: range.count) {
                sqlite3_result_text(context, $0, terminated ? -1 : Int32(range.count), nil)
            }
        }
    }

    /// Calls `body` with the column's bytes, valid during the call.
    func withBytes<T>(_ body: (Bytes) throws -> T) rethrows -> T {
        try bytes.withUnsafeBufferPointer { all in try body(Bytes(all: all, ranges: ranges, terminated: terminated)) }
    }
}

extension Database {
    /// Raises the source's cursor of each stream to its index (never lowers one), marking the
    /// run that raised it: the glucose and the activity imports alike.
    func raiseSourceCursors(_ cursors: RecordCursors, sourceID: Int64, runID: Int64) throws {
        let upsert = try cachedStatement(
            sql: """
                INSERT INTO source_cursor (source_id, stream, last_record_index, import_run_id)
                VALUES (?, ?, ?, ?)
                ON CONFLICT (source_id, stream) DO UPDATE
                SET last_record_index = excluded.last_record_index, import_run_id = excluded.import_run_id
                WHERE excluded.last_record_index > source_cursor.last_record_index
                """)
        for (stream, index) in cursors {
            try upsert.execute(arguments: [sourceID, stream.rawValue, index, runID])
        }
    }
}
