import Foundation
import Store

extension SyncRows {
    /// The rows as a JSON array of objects keyed by column name, for `json_to_recordset`.
    /// Values are SQLite's: integers, finite reals (the store's CHECKs refuse others), text, null.
    var json: String {
        let keys = columns.map { Self.quoted($0) + ":" }
        var text = "["
        text.reserveCapacity(rows.count * columns.count * 16)
        for (rowIndex, row) in rows.enumerated() {
            text += rowIndex == 0 ? "{" : ",{"
            for (index, value) in row.enumerated() {
                if index > 0 { text += "," }
                text += keys[index]
                switch value {
                case .null: text += "null"
                case .integer(let number): text += String(number)
                case .real(let number): text += number.isFinite ? "\(number)" : "null"
                case .text(let string): text += Self.quoted(string)
                }
            }
            text += "}"
        }
        return text + "]"
    }

    /// A JSON string literal (RFC 8259, section 7).
    private static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// The rows whose `key` column is in `keys`, in their order.
    func selecting(keys: Set<String>, column: String = "key") -> SyncRows {
        guard let index = columns.firstIndex(of: column) else { return SyncRows(columns: columns, rows: []) }
        return SyncRows(columns: columns, rows: rows.filter { row in
            if case .text(let key) = row[index] { return keys.contains(key) }
            return false
        })
    }

    /// The distinct (family, serial) pairs of the rows, as rows of those two columns.
    var sources: SyncRows {
        guard let family = columns.firstIndex(of: "family"), let serial = columns.firstIndex(of: "serial") else {
            return SyncRows(columns: ["family", "serial"], rows: [])
        }
        var seen = Set<[SyncValue]>()
        var pairs: [[SyncValue]] = []
        for row in rows where seen.insert([row[family], row[serial]]).inserted {
            pairs.append([row[family], row[serial]])
        }
        return SyncRows(columns: ["family", "serial"], rows: pairs)
    }
}
