import Foundation
import GRDB

/// Reads store columns into model values, failing loudly on text another writer got wrong.
enum Decode {
    static func instant(_ row: Row, _ index: Int, _ name: String) throws -> Date {
        let text: String = row[index]
        guard let date = StoreTime.date(text) else { throw unreadable(name, text) }
        return date
    }

    static func optionalInstant(_ row: Row, _ index: Int, _ name: String) throws -> Date? {
        guard let text: String = row[index] else { return nil }
        guard let date = StoreTime.date(text) else { throw unreadable(name, text) }
        return date
    }

    static func day(_ row: Row, _ index: Int, _ name: String) throws -> DayDate {
        let text: String = row[index]
        guard let date = DayDate(text) else { throw unreadable(name, text) }
        return date
    }

    static func value<T: RawRepresentable>(_ row: Row, _ index: Int, _ name: String) throws -> T
    where T.RawValue == String {
        let text: String = row[index]
        guard let value = T(rawValue: text) else { throw unreadable(name, text) }
        return value
    }

    static func optionalValue<T: RawRepresentable>(_ row: Row, _ index: Int, _ name: String) throws -> T?
    where T.RawValue == String {
        guard let text: String = row[index] else { return nil }
        guard let value = T(rawValue: text) else { throw unreadable(name, text) }
        return value
    }

    static func instant(_ row: Row, _ column: String, _ name: String) throws -> Date {
        let text: String = row[column]
        guard let date = StoreTime.date(text) else { throw unreadable(name, text) }
        return date
    }

    static func optionalInstant(_ row: Row, _ column: String, _ name: String) throws -> Date? {
        guard let text: String = row[column] else { return nil }
        guard let date = StoreTime.date(text) else { throw unreadable(name, text) }
        return date
    }

    static func day(_ row: Row, _ column: String, _ name: String) throws -> DayDate {
        let text: String = row[column]
        guard let date = DayDate(text) else { throw unreadable(name, text) }
        return date
    }

    static func value<T: RawRepresentable>(_ row: Row, _ column: String, _ name: String) throws -> T
    where T.RawValue == String {
        let text: String = row[column]
        guard let value = T(rawValue: text) else { throw unreadable(name, text) }
        return value
    }

    private static func unreadable(_ name: String, _ text: String) -> StoreError {
        .database("the store holds a value glucobridge cannot read: \(name) = '\(text)'")
    }
}
