import Foundation
import GRDBSQLite
import Model

/// An import's readings as rows SQLite reads itself: the table-valued function
/// `glucobridge_import_rows(rows, run)`, an eponymous virtual table
/// (https://sqlite.org/vtab.html#tabfunc2) registered on every connection of the store. `rows`
/// is an ``ImportRowSource`` passed with `sqlite3_bind_pointer` (https://sqlite.org/bindptr.html),
/// `run` the index of one of its runs; the rows are that run's readings, with the columns of a
/// `glucose` row but the Day, source and import run (constant in a run, bound by the INSERT).
/// Any other use (no source, or a source of another type) gives no rows.
///
/// One `INSERT … SELECT` per run then stores an import's readings, as the store floor of
/// docs/benchmarks.md stores them from another table: no statement of 64 rows of 15 bound
/// parameters each, prepared for each length and run some 450 times for 90 days, each with a
/// statement journal.
enum ImportRowTable {
    /// The name SQL calls the function by.
    static let name = "glucobridge_import_rows"

    /// Registers the table on `connection`; false when SQLite refused.
    static func register(_ connection: OpaquePointer) -> Bool {
        // SQLite reads and writes its part of a cursor at the cursor's address.
        precondition(MemoryLayout<Cursor>.offset(of: \Cursor.base) == 0)
        return sqlite3_create_module_v2(connection, name, module, nil, nil) == SQLITE_OK
    }

    /// The type name `sqlite3_bind_pointer` and `sqlite3_value_pointer` match, kept for the life
    /// of the process (SQLite compares the pointers' type names, not their addresses).
    /// Never written after it is made.
    nonisolated(unsafe) static let pointerType: UnsafePointer<CChar> = UnsafePointer(strdup("glucobridge_import_rows")!)

    /// The columns SQL sees, in order: values of a reading (``GlucoseImportColumns/Reading``),
    /// then the two arguments (hidden).
    private static let declaration =
        "CREATE TABLE x(" + GlucoseImportColumns.Reading.allCases.map(\.name).joined(separator: ", ")
        + ", rows HIDDEN, run HIDDEN)"
    private static let rowsColumn = Int32(GlucoseImportColumns.Reading.allCases.count)
    private static let runColumn = rowsColumn + 1

    /// The module's functions: read only, no transactions of its own. The struct lives as long
    /// as the process (SQLite keeps its address), and is never written after it is made.
    nonisolated(unsafe) private static let module: UnsafeMutablePointer<sqlite3_module> = {
        let module = UnsafeMutablePointer<sqlite3_module>.allocate(capacity: 1)
        module.initialize(to: sqlite3_module())
        module.pointee.iVersion = 1
        // No xCreate: eponymous only (https://sqlite.org/vtab.html#eponymous_only_virtual_tables).
        module.pointee.xConnect = { connection, _, _, _, table, _ in
            let code = sqlite3_declare_vtab(connection, ImportRowTable.declaration)
            guard code == SQLITE_OK else { return code }
            let made = UnsafeMutablePointer<sqlite3_vtab>.allocate(capacity: 1)
            made.initialize(to: sqlite3_vtab())
            table?.pointee = made
            return SQLITE_OK
        }
        module.pointee.xDisconnect = { table in
            table?.deallocate()
            return SQLITE_OK
        }
        module.pointee.xBestIndex = { _, info in
            guard let info else { return SQLITE_ERROR }
            // Only `rows = ? AND run = ?` (both arguments given) has rows; without them, none.
            var rows: Int?
            var run: Int?
            for i in 0..<Int(info.pointee.nConstraint) {
                let constraint = info.pointee.aConstraint[i]
                guard constraint.usable != 0, constraint.op == SQLITE_INDEX_CONSTRAINT_EQ else { continue }
                if constraint.iColumn == rowsColumn { rows = i }
                if constraint.iColumn == runColumn { run = i }
            }
            if let rows, let run {
                info.pointee.aConstraintUsage[rows].argvIndex = 1
                info.pointee.aConstraintUsage[rows].omit = 1
                info.pointee.aConstraintUsage[run].argvIndex = 2
                info.pointee.aConstraintUsage[run].omit = 1
                info.pointee.idxNum = 1
                info.pointee.estimatedCost = 1
                info.pointee.estimatedRows = 288
            } else {
                info.pointee.idxNum = 0
                info.pointee.estimatedCost = 1e12
            }
            return SQLITE_OK
        }
        module.pointee.xOpen = { _, cursor in
            let made = UnsafeMutablePointer<Cursor>.allocate(capacity: 1)
            made.initialize(to: Cursor())
            cursor?.pointee = UnsafeMutableRawPointer(made).assumingMemoryBound(to: sqlite3_vtab_cursor.self)
            return SQLITE_OK
        }
        module.pointee.xClose = { cursor in
            cursor.map { Cursor.of($0).deallocate() }
            return SQLITE_OK
        }
        module.pointee.xFilter = { cursor, index, _, count, arguments in
            guard let cursor else { return SQLITE_ERROR }
            let state = Cursor.of(cursor)
            state.pointee.source = nil
            state.pointee.row = 0
            state.pointee.end = 0
            guard index == 1, count == 2, let arguments,
                let pointer = sqlite3_value_pointer(arguments[0], ImportRowTable.pointerType)
            else { return SQLITE_OK }
            let source = Unmanaged<ImportRowSource>.fromOpaque(pointer)
            let run = Int(sqlite3_value_int64(arguments[1]))
            let range = source._withUnsafeGuaranteedRef { $0.runs.indices.contains(run) ? $0.runs[run] : 0..<0 }
            state.pointee.source = source
            state.pointee.row = range.lowerBound
            state.pointee.end = range.upperBound
            return SQLITE_OK
        }
        module.pointee.xNext = { cursor in
            cursor.map { Cursor.of($0).pointee.row += 1 }
            return SQLITE_OK
        }
        module.pointee.xEof = { cursor in
            guard let cursor else { return 1 }
            let state = Cursor.of(cursor).pointee
            return state.row < state.end ? 0 : 1
        }
        module.pointee.xRowid = { cursor, rowid in
            guard let cursor else { return SQLITE_ERROR }
            rowid?.pointee = sqlite3_int64(Cursor.of(cursor).pointee.row)
            return SQLITE_OK
        }
        module.pointee.xColumn = { cursor, context, column in
            guard let cursor, let context else { return SQLITE_ERROR }
            let state = Cursor.of(cursor).pointee
            guard let source = state.source else {
                sqlite3_result_null(context)
                return SQLITE_OK
            }
            source._withUnsafeGuaranteedRef { $0.result(row: state.row, column: column, context) }
            return SQLITE_OK
        }
        return module
    }()

    /// A cursor: SQLite's part first (it reads `pVtab` there), then the run being read.
    private struct Cursor {
        var base = sqlite3_vtab_cursor()
        var source: Unmanaged<ImportRowSource>?
        var row = 0
        var end = 0

        static func of(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>) -> UnsafeMutablePointer<Cursor> {
            UnsafeMutableRawPointer(cursor).assumingMemoryBound(to: Cursor.self)
        }
    }
}

/// What `glucobridge_import_rows` reads: a batch's readings, their texts worked out before the
/// write lock (``GlucoseRows``), the tags' thresholds and the runs. The texts are read in place:
/// the source is valid only inside ``GlucoseRows/withSource(_:thresholds:_:)``.
final class ImportRowSource {
    let readings: UnsafeBufferPointer<GlucoseReading>
    let thresholds: GlucoseThresholds
    let runs: [Range<Int>]
    let times: TextColumn.Bytes
    let keys: TextColumn.Bytes
    let displayTimes: TextColumn.Bytes

    init(
        readings: UnsafeBufferPointer<GlucoseReading>, thresholds: GlucoseThresholds, runs: [Range<Int>],
        times: TextColumn.Bytes, keys: TextColumn.Bytes, displayTimes: TextColumn.Bytes
    ) {
        self.readings = readings
        self.thresholds = thresholds
        self.runs = runs
        self.times = times
        self.keys = keys
        self.displayTimes = displayTimes
    }

    /// Gives SQLite column `column` of reading `row`: texts in place or constant, SQLite copies
    /// them into the row it stores.
    func result(row: Int, column: Int32, _ context: OpaquePointer) {
        guard let column = GlucoseImportColumns.Reading(rawValue: column) else { return sqlite3_result_null(context) }
        switch column {
        case .time: times.result(row, context)
        case .mgdl: sqlite3_result_double(context, readings[row].mgdl)
        case .unit: Constants.unit(readings[row].unit).result(context)
        case .tag: Constants.tag(thresholds.storeTag(mgdl: readings[row].mgdl, unit: readings[row].unit)).result(context)
        case .flag: Constants.flag(readings[row].flag).result(context)
        case .kind: Constants.kind(readings[row].kind).result(context)
        case .trend: Constants.trend(readings[row].trend).result(context)
        case .noise:
            if let noise = readings[row].noise { sqlite3_result_int64(context, sqlite3_int64(noise)) } else { sqlite3_result_null(context) }
        case .deviceRecordKey: keys.result(row, context)
        case .deviceTime: sqlite3_result_int64(context, readings[row].deviceTime)
        case .deviceDisplayTime: displayTimes.result(row, context)
        case .note:
            guard var note = readings[row].note else { return sqlite3_result_null(context) }
            note.withUTF8 { bytes in
                guard let start = bytes.baseAddress else { return sqlite3_result_text(context, "", 0, Constants.transient) }
                UnsafeRawPointer(start).withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_result_text(context, $0, Int32(bytes.count), Constants.transient)
                }
            }
        }
    }
}

/// One name's text as SQLite takes it, or none (NULL).
///
/// Not nested in ``ConstantText``: an array of a type nested in a generic type needs its
/// metadata made at run time the first time, checking the generic parameter's conformances
/// (about a million instructions for each kind of value).
struct ConstantTextValue {
    let pointer: UnsafePointer<CChar>?
    let count: Int32

    /// Gives SQLite the text as a function or column result, without a copy.
    func result(_ context: OpaquePointer) {
        guard let pointer else { return sqlite3_result_null(context) }
        sqlite3_result_text(context, pointer, count, nil)
    }
}

/// NUL-terminated copies of the names of one kind of glucose value (units, tags, flags, kinds,
/// trends), made once and kept for the life of the process; found by case, without hashing.
/// Sendable: nothing is written after `init`, and the text the pointers point at never changes.
struct ConstantText<Name: CaseIterable & RawRepresentable & Equatable>: @unchecked Sendable where Name.RawValue == String {
    /// Each case's text, in the order of `allCases`, which is the order of the cases'
    /// declarations and so of their tags.
    private let texts: [ConstantTextValue]

    init() {
        texts = Name.allCases.map { ConstantTextValue(pointer: UnsafePointer(strdup($0.rawValue)!), count: Int32($0.rawValue.utf8.count)) }
        // A case is found by its tag, without comparing it to each case: a payload-free enum is
        // one byte, its cases numbered in the order they are declared, as `allCases` lists them.
        precondition(MemoryLayout<Name>.size == 1)
        for (index, name) in Name.allCases.enumerated() { precondition(Self.tag(name) == index) }
    }

    private static func tag(_ name: Name) -> Int {
        Int(unsafeBitCast(name, to: UInt8.self))
    }

    func callAsFunction(_ name: Name?) -> ConstantTextValue {
        guard let name else { return ConstantTextValue(pointer: nil, count: 0) }
        return texts[Self.tag(name)]
    }
}

/// The glucose values given as constant text.
enum Constants {
    static let unit = ConstantText<GlucoseUnit>()
    static let tag = ConstantText<GlucoseTag>()
    static let flag = ConstantText<RangeFlag>()
    static let kind = ConstantText<ReadingKind>()
    static let trend = ConstantText<Trend>()
    /// SQLite's `SQLITE_TRANSIENT`: it copies the text before the call returns.
    static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }
}
