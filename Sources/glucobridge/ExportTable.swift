import Foundation
import Model

/// One field of an exported row: text, or a number JSON writes as a number.
enum ExportField: Encodable, Equatable {
    case text(String)
    case integer(Int)
    /// A number rounded to `places` decimals (trailing zeros dropped in CSV).
    case decimal(Double, places: Int)
    /// A number rounded to `places` decimals, written with all of them in CSV (10.0 mmol/L, as a
    /// meter shows it).
    case fixed(Double, places: Int)
    /// A stored value exactly as it is: whole stays whole (`100`), a decimal keeps every digit
    /// it has (`99.7`), only the binary noise past six places dropped (``GlucoseValueText``).
    case exact(Double)
    case bool(Bool)
    case null

    /// A stored mg/dL value exactly (`100`, `99.7`, `204.5`), as the device sent it.
    static func mgdl(_ value: Double) -> ExportField { .exact(value) }
    /// A whole number of mg/dL, for formats whose convention is whole mg/dL (Nightscout's `sgv`).
    static func wholeMgdl(_ value: Double) -> ExportField { .integer(Int(value.rounded())) }
    /// mmol/L to one decimal, from mg/dL.
    static func mmol(fromMgdl value: Double) -> ExportField { .fixed(value / GlucoseUnit.mgdlPerMmol, places: 1) }
    static func optional(_ text: String?) -> ExportField { text.map(ExportField.text) ?? .null }

    var rounded: Double? {
        let value: Double, places: Int
        switch self {
        case let .decimal(v, p), let .fixed(v, p): (value, places) = (v, p)
        default: return nil
        }
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }

    var csv: String {
        switch self {
        case .text(let text): text
        case .integer(let value): String(value)
        case .decimal(_, let places): Format.number(rounded!, decimals: places)
        case .fixed(_, let places): String(format: "%.\(places)f", rounded!)
        case .exact(let value): GlucoseValueText.exact(value)
        case .bool(let value): value ? "true" : "false"
        case .null: ""
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .integer(let value): try container.encode(value)
        case .decimal, .fixed: try container.encode(rounded!)
        case .exact(let value):
            let exact = GlucoseValueText.snapped(value)
            if let whole = Int(exactly: exact) { try container.encode(whole) } else { try container.encode(exact) }
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}

/// Rows of fields as CSV (a header row, RFC 4180 quoting) or as a JSON array of objects keyed
/// by column, empty fields left out and numbers as numbers. Shared by every export kind.
enum ExportTable {
    static func csv(columns: [String], rows: [[ExportField]]) -> String {
        var out = columns.joined(separator: ",") + "\n"
        for row in rows {
            let fields = row.map { field -> String in
                let text = field.csv
                return text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
                    ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
            }
            out += fields.joined(separator: ",") + "\n"
        }
        return out
    }

    static func json(columns: [String], rows: [[ExportField]]) throws -> Data {
        try json(rows.map { row in Dictionary(uniqueKeysWithValues: zip(columns, row).filter { $0.1 != .null }) })
    }

    /// Objects as pretty, key-sorted JSON ending with a newline.
    static func json(_ objects: [[String: ExportField]]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(objects) + Data("\n".utf8)
    }
}
