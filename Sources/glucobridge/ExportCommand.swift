import ArgumentParser
import Foundation
import Model
import Store

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Writes the stored glucose readings or exercise sessions as CSV or JSON on stdout.")

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case csv, json
    }

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case glucose, exercise
    }

    @Option(name: .long, help: "glucose (readings) or exercise (sessions, by their start).")
    var kind: Kind = .glucose

    @Option(name: .long, help: "csv or json.")
    var format: Format = .csv

    @Option(name: .long, help: ArgumentHelp(
        "The first instant or Day to include: 2024-05-01 (a Day in the store's zone) or 2024-05-01T06:00:00Z.", valueName: "when"))
    var from: String?

    @Option(name: .long, help: ArgumentHelp("The instant or Day to stop before (a Day counts whole).", valueName: "when"))
    var to: String?

    @OptionGroup var storeOptions: StoreOptions

    func run() throws {
        try reportingErrors {
            let store = try storeOptions.openExisting()
            let start = try from.map { try Self.instant($0, zone: store.timeZone, endOfDay: false) }
            let end = try to.map { try Self.instant($0, zone: store.timeZone, endOfDay: true) }
            let columns: [String], rows: [[String?]]
            switch kind {
            case .glucose:
                (columns, rows) = (GlucoseExport.columns, try store.glucose(from: start, to: end).map(GlucoseExport.fields))
            case .exercise:
                (columns, rows) = (ExerciseExport.columns, try store.logs(ExerciseLog.self, from: start, to: end).map(ExerciseExport.fields))
            }
            switch format {
            case .csv: FileHandle.standardOutput.write(Data(ExportTable.csv(columns: columns, rows: rows).utf8))
            case .json: FileHandle.standardOutput.write(try ExportTable.json(columns: columns, rows: rows))
            }
        }
    }

    /// `2024-05-01` is that Day's start (or, for `--to`, the next Day's start) in the store's zone.
    static func instant(_ text: String, zone: TimeZone, endOfDay: Bool) throws -> Date {
        if let day = DayDate(text) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let start = calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day))!
            return endOfDay ? calendar.date(byAdding: .day, value: 1, to: start)! : start
        }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        throw CLIError("cannot read \"\(text)\" as a Day (2024-05-01) or an instant (2024-05-01T06:00:00Z)")
    }
}

/// The glucose export. Columns are documented in README.md and never renamed.
enum GlucoseExport {
    static let columns = ["time", "day", "mgdl", "mmol", "tag", "flag", "kind", "trend", "source", "record_key", "device_display_time", "note"]

    static func csv(_ readings: [StoredGlucose]) -> String {
        ExportTable.csv(columns: columns, rows: readings.map(fields))
    }

    static func json(_ readings: [StoredGlucose]) throws -> Data {
        try ExportTable.json(columns: columns, rows: readings.map(fields))
    }

    static func fields(_ r: StoredGlucose) -> [String?] {
        let source = r.sourceFamily.map { family in r.sourceSerial.map { "\(family):\($0)" } ?? family }
        return [
            timestamp(r.time), r.day.description, ExportTable.number(r.mgdl),
            String(format: "%.1f", r.mgdl / GlucoseUnit.mgdlPerMmol), r.tag.rawValue, r.flag?.rawValue, r.kind.rawValue,
            r.trend?.rawValue, source, r.recordKey, r.displayTime, r.note,
        ]
    }

    /// `2013-09-13T04:27:34Z`: UTC, second precision.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded()))
    }
}
