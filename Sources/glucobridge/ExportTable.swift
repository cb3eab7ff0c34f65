import Foundation

/// Rows of optional text fields as CSV (a header row, RFC 4180 quoting) or as a JSON array of
/// objects keyed by column, empty fields left out. Shared by every export kind.
enum ExportTable {
    static func csv(columns: [String], rows: [[String?]]) -> String {
        var out = columns.joined(separator: ",") + "\n"
        for row in rows {
            let fields = row.map { field -> String in
                guard let field else { return "" }
                return field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
                    ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
            }
            out += fields.joined(separator: ",") + "\n"
        }
        return out
    }

    static func json(columns: [String], rows: [[String?]]) throws -> Data {
        let objects = rows.map { row in
            Dictionary(uniqueKeysWithValues: zip(columns, row).compactMap { key, value in value.map { (key, $0) } })
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return try encoder.encode(objects) + Data("\n".utf8)
    }

    /// A whole number without a fraction, any other as Swift prints it.
    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
