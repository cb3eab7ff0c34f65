import Foundation
import GRDB

/// Reads store columns into model values, failing loudly on text another writer got wrong.
/// Each reader takes the column by position or by name.
enum Decode {
    static func instant(_ row: Row, _ index: Int, _ name: String) throws -> Date {
        try required(row[index], name, StoreTime.date)
    }

    static func instant(_ row: Row, _ column: String, _ name: String) throws -> Date {
        try required(row[column], name, StoreTime.date)
    }

    static func optionalInstant(_ row: Row, _ index: Int, _ name: String) throws -> Date? {
        try optional(row[index], name, StoreTime.date)
    }

    static func optionalInstant(_ row: Row, _ column: String, _ name: String) throws -> Date? {
        try optional(row[column], name, StoreTime.date)
    }

    static func day(_ row: Row, _ index: Int, _ name: String) throws -> DayDate {
        try required(row[index], name, DayDate.init)
    }

    static func day(_ row: Row, _ column: String, _ name: String) throws -> DayDate {
        try required(row[column], name, DayDate.init)
    }

    static func value<T: RawRepresentable>(_ row: Row, _ index: Int, _ name: String) throws -> T where T.RawValue == String {
        try required(row[index], name, T.init(rawValue:))
    }

    static func value<T: RawRepresentable>(_ row: Row, _ column: String, _ name: String) throws -> T where T.RawValue == String {
        try required(row[column], name, T.init(rawValue:))
    }

    static func optionalValue<T: RawRepresentable>(_ row: Row, _ index: Int, _ name: String) throws -> T? where T.RawValue == String {
        try optional(row[index], name, T.init(rawValue:))
    }

    /// `make(text)`, or nil for NULL; text `make` cannot read is an error naming the column.
    private static func optional<T>(_ text: String?, _ name: String, _ make: (String) -> T?) throws -> T? {
        guard let text else { return nil }
        guard let value = make(text) else { throw unreadable(name, text) }
        return value
    }

    /// As `optional`, with NULL an error too.
    private static func required<T>(_ text: String?, _ name: String, _ make: (String) -> T?) throws -> T {
        guard let value = try optional(text, name, make) else { throw unreadable(name, "NULL") }
        return value
    }

    static func unreadable(_ name: String, _ text: String) -> StoreError {
        .database("the store holds a value glucobridge cannot read: \(name) = '\(text)'")
    }
}
