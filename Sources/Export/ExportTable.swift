import Foundation
import Model

/// One field of an exported row: text, or a number JSON writes as a number.
package enum ExportField: Equatable {
    case text(String)
    case integer(Int)
    /// A number rounded to `places` decimals (trailing zeros dropped in CSV).
    case decimal(Double, places: Int)
    /// A number rounded to `places` decimals, written with all of them in CSV (10.0 mmol/L, as a
    /// meter shows it).
    case fixed(Double, places: Int)
    /// A stored value exactly as it is: whole stays whole (`100`), a decimal keeps every digit
    /// it has (`99.7`), only the binary noise past six places dropped (`GlucoseValueText`).
    case exact(Double)
    case bool(Bool)
    /// An instant in UTC, ISO 8601: to the second (`2013-09-13T04:27:34Z`), or to the
    /// millisecond (`2015-07-18T00:18:17.000Z`) as Nightscout writes `dateString` and `created_at`.
    case instant(Date, milliseconds: Bool)
    case null

    /// A stored mg/dL value exactly (`100`, `99.7`, `204.5`), as the device sent it.
    package static func mgdl(_ value: Double) -> ExportField { .exact(value) }
    /// A whole number of mg/dL, for formats whose convention is whole mg/dL (Nightscout's `sgv`).
    package static func wholeMgdl(_ value: Double) -> ExportField { .integer(Int(value.rounded())) }
    /// mmol/L to one decimal, from mg/dL.
    package static func mmol(fromMgdl value: Double) -> ExportField { .fixed(value / GlucoseUnit.mgdlPerMmol, places: 1) }
    package static func optional(_ text: String?) -> ExportField { text.map(ExportField.text) ?? .null }
    /// An instant to the second.
    package static func instant(_ date: Date) -> ExportField { .instant(date, milliseconds: false) }

    /// The field as a CSV field (empty for null).
    func writeCSV(to output: inout ExportOutput) {
        switch self {
        case .text(let text): output.appendCSV(text)
        case .integer(let value): output.append(integer: value)
        case .decimal(let value, let places): output.appendCSV(value, places: places, trimmingZeros: true)
        case .fixed(let value, let places): output.appendCSV(value, places: places, trimmingZeros: false)
        case .exact(let value): output.appendExact(value)
        case .bool(let value): output.append(value ? "true" : "false")
        case .instant(let date, let milliseconds): output.appendInstant(date, milliseconds: milliseconds)
        case .null: break
        }
    }

    /// The field as a JSON value.
    func writeJSON(to output: inout ExportOutput) {
        switch self {
        case .text(let text): output.appendJSON(text)
        case .integer(let value): output.append(integer: value)
        case .decimal(let value, let places), .fixed(let value, let places): output.appendJSON(value, places: places)
        case .exact(let value): output.appendExact(value)
        case .bool(let value): output.append(value ? "true" : "false")
        case .instant(let date, let milliseconds):
            output.append(UInt8(ascii: "\""))
            output.appendInstant(date, milliseconds: milliseconds)
            output.append(UInt8(ascii: "\""))
        case .null: output.append("null")
        }
    }
}

/// Rows as CSV (a header row, RFC 4180 quoting) or as a JSON array of objects, pretty, keys
/// sorted by their UTF-8 bytes, empty fields left out and numbers as numbers: the layout
/// `JSONEncoder` gave them (`.prettyPrinted`, `.sortedKeys`, `.withoutEscapingSlashes`), written
/// row by row into an ``ExportOutput``. Shared by every export kind.
package struct ExportTable {
    package enum Format: Sendable {
        case csv, json
    }

    package let format: Format
    private let columns: [String]
    /// The columns' positions in the order JSON writes their keys.
    let keyOrder: [Int]
    /// `"key" : ` of each column, as a JSON object's member starts.
    let keys: [[UInt8]]
    private(set) var rows = 0

    package init(_ format: Format, columns: [String]) {
        self.format = format
        self.columns = columns
        keyOrder = columns.indices.sorted { columns[$0].utf8.lexicographicallyPrecedes(columns[$1].utf8) }
        keys = columns.map { Self.key($0) }
    }

    /// The bytes `"key" : ` (keys are plain names: nothing to escape).
    static func key(_ name: String) -> [UInt8] { Array("\"\(name)\" : ".utf8) }

    /// The header row (CSV); nothing for JSON, whose array opens with its first row.
    package func begin(_ output: inout ExportOutput) {
        guard format == .csv else { return }
        for (index, column) in columns.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            output.append(column)
        }
        output.append(UInt8(ascii: "\n"))
    }

    /// One row, its fields in the order of the columns.
    package mutating func write(_ row: [ExportField], to output: inout ExportOutput) throws(ExportOutputError) {
        switch format {
        case .csv:
            for (index, field) in row.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                field.writeCSV(to: &output)
            }
            output.append(UInt8(ascii: "\n"))
        case .json:
            var object = JSONObject(&output, index: rows)
            for index in keyOrder where row[index] != .null {
                object.member(keys[index], &output)
                row[index].writeJSON(to: &output)
            }
            object.end(&output)
        }
        rows += 1
        try output.endRow()
    }

    /// Counts a row written by the caller.
    mutating func counted() { rows += 1 }

    /// The end of the table: the JSON array's closing bracket and the final newline.
    package func end(_ output: inout ExportOutput) {
        if format == .json { JSONObject.endArray(&output, count: rows) }
    }

    /// Every row of `rows`, with the header and the end.
    package static func write(
        _ format: Format, columns: [String], rows: [[ExportField]], to output: inout ExportOutput
    ) throws(ExportOutputError) {
        var table = ExportTable(format, columns: columns)
        table.begin(&output)
        for row in rows { try table.write(row, to: &output) }
        table.end(&output)
    }

    /// Objects (such as Nightscout's) as a JSON array, each object's keys sorted.
    package static func writeJSON(_ objects: [[String: ExportField]], to output: inout ExportOutput) throws(ExportOutputError) {
        for (index, fields) in objects.enumerated() {
            var object = JSONObject(&output, index: index)
            for (key, field) in fields.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                object.member(Self.key(key), &output)
                field.writeJSON(to: &output)
            }
            object.end(&output)
            try output.endRow()
        }
        JSONObject.endArray(&output, count: objects.count)
    }
}

/// One object of a pretty-printed JSON array of objects (two spaces an indent level, ` : `
/// between key and value), as `JSONEncoder` lays it out; the array ends with a newline.
struct JSONObject {
    private var members = 0

    /// Opens the array's object number `index` (from 0), with the array itself before the first.
    @inline(__always)
    init(_ output: inout ExportOutput, index: Int) {
        output.append(index == 0 ? "[\n  {" : ",\n  {")
    }

    /// Starts a member: `key` is its `"name" : `.
    @inline(__always)
    mutating func member(_ key: [UInt8], _ output: inout ExportOutput) {
        output.append(members == 0 ? "\n    " : ",\n    ")
        output.append(key)
        members += 1
    }

    @inline(__always)
    mutating func member(_ key: StaticString, _ output: inout ExportOutput) {
        output.append(members == 0 ? "\n    " : ",\n    ")
        output.append(key)
        members += 1
    }

    @inline(__always)
    func end(_ output: inout ExportOutput) {
        output.append(members == 0 ? "\n\n  }" : "\n  }")
    }

    /// Closes an array of `count` objects (`[`, two newlines and `]` when there were none).
    static func endArray(_ output: inout ExportOutput, count: Int) {
        output.append(count == 0 ? "[\n\n]\n" : "\n]\n")
    }
}
