import Foundation
import Model
import Store

/// The glucose export: CSV, JSON (the same columns as keys) or Nightscout entries, written
/// reading by reading as SQLite's cursor steps over the readings, each field straight from the
/// column's bytes into the output's buffer. Columns are documented in README.md and never renamed.
package enum GlucoseExport {
    package enum Format: Sendable {
        case csv, json, nightscout
    }

    package static let columns = [
        "time", "day", "mgdl", "mmol", "tag", "flag", "kind", "trend", "source", "record_key", "device_display_time", "note",
    ]

    /// The readings with `from ≤ time < to` in `format`, into `output` (written out as its
    /// buffer fills; the caller flushes the rest).
    package static func write(
        _ store: SharedStore, from start: Date? = nil, to end: Date? = nil, format: Format, into output: inout ExportOutput
    ) throws {
        switch format {
        case .csv, .json:
            var rows = Rows(format == .csv ? .csv : .json)
            rows.table.begin(&output)
            try store.forEachGlucoseRow(from: start, to: end) { row throws(ExportOutputError) in try rows.write(row, to: &output) }
            rows.table.end(&output)
        case .nightscout:
            var entries = NightscoutEntries()
            try store.forEachGlucoseRow(from: start, to: end) { row throws(ExportOutputError) in try entries.write(row, to: &output) }
            JSONObject.endArray(&output, count: entries.count)
        }
    }

    /// The rows of the CSV and JSON glucose exports.
    private struct Rows {
        enum Column: Int, CaseIterable {
            case time, day, mgdl, mmol, tag, flag, kind, trend, source, recordKey, displayTime, note
        }

        var table: ExportTable
        /// The columns in the order JSON writes their keys.
        let keyOrder: [Column]
        /// `family:serial` of the row's source, built here for each row.
        var source: [UInt8] = []

        init(_ format: ExportTable.Format) {
            table = ExportTable(format, columns: GlucoseExport.columns)
            keyOrder = table.keyOrder.map { Column(rawValue: $0)! }
        }

        mutating func write(_ row: GlucoseRowView, to output: inout ExportOutput) throws(ExportOutputError) {
            let hasSource = Self.source(of: row, into: &source)
            switch table.format {
            case .csv:
                write(.time, of: row, hasSource: hasSource, json: false, to: &output)
                for raw in 1..<GlucoseExport.columns.count {
                    output.append(UInt8(ascii: ","))
                    write(Column(rawValue: raw)!, of: row, hasSource: hasSource, json: false, to: &output)
                }
                output.append(UInt8(ascii: "\n"))
            case .json:
                var object = JSONObject(&output, index: table.rows)
                for column in keyOrder where !isNull(column, row, hasSource: hasSource) {
                    object.member(table.keys[column.rawValue], &output)
                    write(column, of: row, hasSource: hasSource, json: true, to: &output)
                }
                object.end(&output)
            }
            table.counted()
            try output.endRow()
        }

        func isNull(_ column: Column, _ row: GlucoseRowView, hasSource: Bool) -> Bool {
            switch column {
            case .time, .day, .mgdl, .mmol, .tag, .kind: false
            case .flag: row.flag == nil
            case .trend: row.trend == nil
            case .source: !hasSource
            case .recordKey: row.text(.recordKey) == nil
            case .displayTime: row.text(.displayTime) == nil
            case .note: row.text(.note) == nil
            }
        }

        /// The field of `column` (nothing for NULL): mg/dL exactly as stored (`100`, `99.7`),
        /// mmol/L to one decimal computed from it.
        func write(_ column: Column, of row: GlucoseRowView, hasSource: Bool, json: Bool, to output: inout ExportOutput) {
            func text(_ bytes: UnsafeBufferPointer<UInt8>?) {
                guard let bytes else { return }
                if json { output.appendJSON(column: bytes) } else { output.appendCSV(column: bytes) }
            }
            func name(_ value: String?) {
                guard let value else { return }
                if json { output.appendJSON(value) } else { output.append(value) }
            }
            switch column {
            case .time:
                if json { output.append(UInt8(ascii: "\"")) }
                output.appendInstant(row.time, milliseconds: false)
                if json { output.append(UInt8(ascii: "\"")) }
            case .day: text(row.day)
            case .mgdl: output.appendExact(row.mgdl)
            case .mmol:
                let mmol = row.mgdl / GlucoseUnit.mgdlPerMmol
                if json { output.appendJSON(mmol, places: 1) } else { output.appendCSV(mmol, places: 1, trimmingZeros: false) }
            case .tag: name(row.tag.rawValue)
            case .flag: name(row.flag?.rawValue)
            case .kind: name(row.kind.rawValue)
            case .trend: name(row.trend?.rawValue)
            case .source: if hasSource { source.withUnsafeBufferPointer { text($0) } }
            case .recordKey: text(row.text(.recordKey))
            case .displayTime: text(row.text(.displayTime))
            case .note: text(row.text(.note))
            }
        }

        /// Puts `family:serial` (or the family alone without a serial) into `source`, each part
        /// as a `String` of it holds it; false when the reading has no source.
        static func source(of row: GlucoseRowView, into source: inout [UInt8]) -> Bool {
            source.removeAll(keepingCapacity: true)
            guard let family = row.text(.family) else { return false }
            append(family, to: &source)
            if let serial = row.text(.serial) {
                source.append(UInt8(ascii: ":"))
                append(serial, to: &source)
            }
            return true
        }
    }

    /// The bytes of a column's text as a `String` holds it (see ``ExportOutput/string(_:)``).
    static func append(_ column: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        if !column.contains(where: { $0 == 0 || $0 >= 0x80 }) {
            bytes.append(contentsOf: column)
        } else {
            bytes.append(contentsOf: ExportOutput.string(column).utf8)
        }
    }
}

/// A reading as a Nightscout entry (see ``NightscoutExport``): `sgv` for a CGM reading with its
/// `direction`, `mbg` for a fingerstick, `date` in milliseconds and `dateString`, the `device`.
struct NightscoutEntries {
    private(set) var count = 0
    /// The `device` of the row, built here for each row.
    private var device: [UInt8] = []

    mutating func write(_ row: GlucoseRowView, to output: inout ExportOutput) throws(ExportOutputError) {
        var object = JSONObject(&output, index: count)
        let milliseconds = ExportOutput.milliseconds(row.time)
        object.member("\"date\" : ", &output)
        output.append(integer: Int(milliseconds))
        object.member("\"dateString\" : ", &output)
        output.append(UInt8(ascii: "\""))
        output.appendTimestamp(milliseconds: milliseconds, fraction: true)
        output.append(UInt8(ascii: "\""))
        object.member("\"device\" : ", &output)
        device.removeAll(keepingCapacity: true)
        device.append(contentsOf: NightscoutExport.enteredBy.utf8)
        if let family = row.text(.family) {
            device.append(UInt8(ascii: " "))
            GlucoseExport.append(family, to: &device)
            device.append(UInt8(ascii: ":"))
            if let serial = row.text(.serial) { GlucoseExport.append(serial, to: &device) }
        }
        device.withUnsafeBufferPointer { output.appendJSON(column: $0) }
        switch row.kind {
        case .sensor:
            object.member("\"direction\" : ", &output)
            output.appendJSON(NightscoutExport.direction(row.trend))
            object.member("\"sgv\" : ", &output)
            output.append(integer: Int(row.mgdl.rounded()))
            object.member("\"type\" : ", &output)
            output.append("\"sgv\"")
        case .fingerstick:
            object.member("\"mbg\" : ", &output)
            output.append(integer: Int(row.mgdl.rounded()))
            object.member("\"type\" : ", &output)
            output.append("\"mbg\"")
        }
        object.end(&output)
        count += 1
        try output.endRow()
    }
}
