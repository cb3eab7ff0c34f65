import Foundation
import GRDB
import GRDBSQLite
import Model

/// A glucose row while SQLite's statement is on it, for the exports: the values that have a
/// type decoded and checked as `StoredGlucose`'s are, the texts left as SQLite holds them.
/// Valid only inside the closure of `SharedStore/forEachGlucoseRow(from:to:_:)`.
package struct GlucoseRowView {
    /// The text columns, as SQLite holds them.
    package enum TextColumn: Int32 {
        case family = 10
        case serial = 11
        case recordKey = 12
        case displayTime = 14
        case note = 15
    }

    private let statement: SQLiteStatement
    package let time: Date
    package let mgdl: Double
    package let tag: GlucoseTag
    package let flag: RangeFlag?
    package let kind: ReadingKind
    package let trend: Trend?

    /// The Day's date, `YYYY-MM-DD` (checked to be a date).
    package var day: UnsafeBufferPointer<UInt8> { Self.text(statement, 9)! }

    /// The UTF-8 bytes of `column` as SQLite holds them (a NUL and what follows it included, not
    /// checked to be UTF-8), or nil for NULL.
    package func text(_ column: TextColumn) -> UnsafeBufferPointer<UInt8>? { Self.text(statement, column.rawValue) }

    private static func text(_ statement: SQLiteStatement, _ index: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard let bytes = sqlite3_column_text(statement, index) else { return nil }
        return UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, index)))
    }

    /// Decodes the row the statement is on, as `GlucoseQuery.fetch` decodes it; text another
    /// writer got wrong is an error naming the column.
    fileprivate init(_ statement: SQLiteStatement, _ names: inout GlucoseRowNames) throws {
        self.statement = statement
        func unreadable(_ name: String, _ index: Int32) -> StoreError {
            Decode.unreadable(name, Self.text(statement, index).map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } ?? "NULL")
        }
        func optional<Value>(_ index: Int32, _ name: String, _ names: inout RawNames<Value>) throws -> Value? {
            guard let text = Self.text(statement, index) else { return nil }
            guard let value = names.value(text) else { throw unreadable(name, index) }
            return value
        }
        func required<Value>(_ index: Int32, _ name: String, _ names: inout RawNames<Value>) throws -> Value {
            guard let value = try optional(index, name, &names) else { throw unreadable(name, index) }
            return value
        }
        guard let time = Self.text(statement, 1).flatMap(StoreTime.date) else { throw unreadable("glucose.time", 1) }
        self.time = time
        mgdl = sqlite3_column_double(statement, 2)
        _ = try required(3, "glucose.unit", &names.unit)
        tag = try required(4, "glucose.tag", &names.tag)
        flag = try optional(5, "glucose.flag", &names.flag)
        kind = try required(6, "glucose.kind", &names.kind)
        trend = try optional(7, "glucose.trend", &names.trend)
        guard Self.text(statement, 9).flatMap(DayDate.init(utf8:)) != nil else { throw unreadable("day.date", 9) }
    }
}

/// The raw values of a text-backed enum as bytes, to decode a column without making a string.
private struct RawNames<Value: RawRepresentable & CaseIterable> where Value.RawValue == String {
    private let names: [(bytes: [UInt8], value: Value)] = Value.allCases.map { (Array($0.rawValue.utf8), $0) }
    /// The last value found: rows in a run mostly repeat it.
    private var last: Int = 0

    mutating func value(_ text: UnsafeBufferPointer<UInt8>) -> Value? {
        if names[last].bytes.elementsEqual(text) { return names[last].value }
        guard let index = names.firstIndex(where: { $0.bytes.elementsEqual(text) }) else { return nil }
        last = index
        return names[index].value
    }
}

private struct GlucoseRowNames {
    var unit = RawNames<GlucoseUnit>()
    var tag = RawNames<GlucoseTag>()
    var flag = RawNames<RangeFlag>()
    var kind = RawNames<ReadingKind>()
    var trend = RawNames<Trend>()
}

extension SharedStore {
    /// Calls `body` with each glucose reading with `from ≤ time < to` (either bound may be
    /// omitted), ascending by time, as SQLite's cursor steps over them in one read transaction:
    /// no reading is kept after its call. The errors `body` throws come out as they are.
    package func forEachGlucoseRow(from: Date? = nil, to: Date? = nil, _ body: (GlucoseRowView) throws -> Void) throws {
        let (bounds, arguments) = StoreTime.range("g.time", from: from, to: to)
        let condition = (["1"] + bounds).joined(separator: " AND ")
        var failure: (any Error)?
        do {
            try database.read { db in
                let statement = try db.makeStatement(sql: GlucoseQuery.sql(where: condition, orderBy: "g.time, g.id"))
                let cursor = try Row.fetchCursor(statement, arguments: arguments)
                var names = GlucoseRowNames()
                while try cursor.next() != nil {
                    let row = try GlucoseRowView(statement.sqliteStatement, &names)
                    do {
                        try body(row)
                    } catch {
                        failure = error
                        throw error
                    }
                }
            }
        } catch {
            if let failure { throw failure }
            throw StoreError(error, path: path, busyTimeout: busyTimeout)
        }
    }

    /// The SQL of every glucose reading in time order, as `forEachGlucoseRow(from:to:_:)` reads
    /// it without bounds (for a baseline that reads the same rows another way).
    package static var glucoseExportSQL: String { GlucoseQuery.sql(where: "1", orderBy: "g.time, g.id") }
}
