import ArgumentParser
import Foundation
import Model
import Store

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Writes stored glucose readings, logs or Days as CSV, JSON or Nightscout uploads on stdout.",
        discussion: """
            --format nightscout writes what a Nightscout server's REST API v1 takes: glucose as \
            entries (POST /api/v1/entries), insulin, meals and exercise as treatments (POST \
            /api/v1/treatments).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case csv, json, nightscout
    }

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case glucose, insulin, meal, exercise, illness, stress, days
    }

    @Option(name: .long, help: "glucose (readings), insulin, meal, exercise (sessions, by their start), illness, stress (episodes, by their start) or days.")
    var kind: Kind = .glucose

    @Option(name: .long, help: "csv, json, or nightscout (glucose, insulin, meal, exercise).")
    var format: Format = .csv

    @Option(name: .long, help: ArgumentHelp(
        "The first Day (2024-05-01, a Day in the store's zone) or instant to include: \(TimeInput.help).", valueName: "when"))
    var from: String?

    @Option(name: .long, help: ArgumentHelp("The instant or Day to stop before (a Day counts whole).", valueName: "when"))
    var to: String?

    @OptionGroup var storeOptions: StoreOptions

    func run() throws {
        try reportingErrors {
            let store = try storeOptions.openExisting()
            let start = try from.map { try TimeInput.bound($0, .start, zone: store.timeZone) }
            let end = try to.map { try TimeInput.bound($0, .end, zone: store.timeZone) }
            if format == .nightscout {
                FileHandle.standardOutput.write(try ExportTable.json(try nightscout(store, from: start, to: end)))
                return
            }
            let (columns, rows) = try table(store, from: start, to: end)
            switch format {
            case .csv: FileHandle.standardOutput.write(Data(ExportTable.csv(columns: columns, rows: rows).utf8))
            case .json, .nightscout: FileHandle.standardOutput.write(try ExportTable.json(columns: columns, rows: rows))
            }
        }
    }

    /// The columns and rows of `kind` with `from ≤ time < to`.
    func table(_ store: SharedStore, from start: Date?, to end: Date?) throws -> ([String], [[ExportField]]) {
        switch kind {
        case .glucose: (GlucoseExport.columns, try store.glucose(from: start, to: end).map(GlucoseExport.fields))
        case .insulin: (InsulinExport.columns, try store.logs(InsulinLog.self, from: start, to: end).map(InsulinExport.fields))
        case .meal: (MealExport.columns, try store.logs(MealLog.self, from: start, to: end).map(MealExport.fields))
        case .exercise: (ExerciseExport.columns, try store.logs(ExerciseLog.self, from: start, to: end).map(ExerciseExport.fields))
        case .illness: (EpisodeExport.columns, try store.logs(IllnessEpisode.self, from: start, to: end).map(EpisodeExport.fields))
        case .stress: (EpisodeExport.columns, try store.logs(StressEpisode.self, from: start, to: end).map(EpisodeExport.fields))
        case .days:
            (DayExport.columns, try store.recentDays(Int(Int32.max)).reversed().filter { day in
                let dayStart = day.date.start(in: store.timeZone)
                return start.map { dayStart >= DayDate(instant: $0, timeZone: store.timeZone).start(in: store.timeZone) } ?? true
                    && end.map { dayStart < $0 } ?? true
            }.map(DayExport.fields))
        }
    }

    /// Nightscout entries (glucose) or treatments (insulin, meals, exercise).
    func nightscout(_ store: SharedStore, from start: Date?, to end: Date?) throws -> [[String: ExportField]] {
        switch kind {
        case .glucose: return try store.glucose(from: start, to: end).map(NightscoutExport.entry)
        case .insulin: return try store.logs(InsulinLog.self, from: start, to: end).map(NightscoutExport.treatment)
        case .meal: return try store.logs(MealLog.self, from: start, to: end).map(NightscoutExport.treatment)
        case .exercise: return try store.logs(ExerciseLog.self, from: start, to: end).map(NightscoutExport.treatment)
        case .illness, .stress, .days:
            throw CLIError("--format nightscout exports glucose (entries), insulin, meal or exercise (treatments), not \(kind.rawValue); use csv or json")
        }
    }
}

/// The glucose export. Columns are documented in docs/commands.md and never renamed.
enum GlucoseExport {
    static let columns = ["time", "day", "mgdl", "mmol", "tag", "flag", "kind", "trend", "source", "record_key", "device_display_time", "note"]

    static func csv(_ readings: [StoredGlucose]) -> String {
        ExportTable.csv(columns: columns, rows: readings.map(fields))
    }

    static func json(_ readings: [StoredGlucose]) throws -> Data {
        try ExportTable.json(columns: columns, rows: readings.map(fields))
    }

    /// mg/dL exactly as stored (`100`, `99.7`), mmol/L to one decimal computed from it.
    static func fields(_ r: StoredGlucose) -> [ExportField] {
        let source = r.sourceFamily.map { family in r.sourceSerial.map { "\(family):\($0)" } ?? family }
        return [
            .text(timestamp(r.time)), .text(r.day.description), .mgdl(r.mgdl), .mmol(fromMgdl: r.mgdl), .text(r.tag.rawValue),
            .optional(r.flag?.rawValue), .text(r.kind.rawValue), .optional(r.trend?.rawValue), .optional(source),
            .optional(r.recordKey), .optional(r.displayTime), .optional(r.note),
        ]
    }

    /// `2013-09-13T04:27:34Z`: UTC, second precision.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded()))
    }
}
