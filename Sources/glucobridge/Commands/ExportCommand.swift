import ArgumentParser
import Export
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

    @Option(
        name: .long,
        help: "glucose (readings), insulin, meal, exercise (sessions, by their start), illness, stress (episodes, by their start) or days.")
    var kind: Kind = .glucose

    @Option(name: .long, help: "csv, json, or nightscout (glucose, insulin, meal, exercise).")
    var format: Format = .csv

    @Option(
        name: .long,
        help: ArgumentHelp(
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
            // A reader that goes away is a write error (EPIPE) to report, not a silent death.
            signal(SIGPIPE, SIG_IGN)
            var output = ExportOutput()
            try write(store, from: start, to: end, to: &output)
            try output.flush()
        }
    }

    /// The export of `kind` in `format` with `from ≤ time < to`: glucose streamed from the
    /// store's cursor, the logs and Days (a few a day) from their arrays.
    func write(_ store: SharedStore, from start: Date?, to end: Date?, to output: inout ExportOutput) throws {
        if kind == .glucose {
            let format: GlucoseExport.Format =
                switch format {
                case .csv: .csv
                case .json: .json
                case .nightscout: .nightscout
                }
            return try GlucoseExport.write(store, from: start, to: end, format: format, into: &output)
        }
        if format == .nightscout {
            return try ExportTable.writeJSON(try nightscout(store, from: start, to: end), to: &output)
        }
        let (columns, rows) = try table(store, from: start, to: end)
        try ExportTable.write(format == .csv ? .csv : .json, columns: columns, rows: rows, to: &output)
    }

    /// The columns and rows of `kind` (not glucose) with `from ≤ time < to`.
    func table(_ store: SharedStore, from start: Date?, to end: Date?) throws -> ([String], [[ExportField]]) {
        switch kind {
        case .glucose: preconditionFailure("glucose is streamed from the store's cursor by GlucoseExport")
        case .insulin: (InsulinExport.columns, try store.logs(InsulinLog.self, from: start, to: end).map(InsulinExport.fields))
        case .meal: (MealExport.columns, try store.logs(MealLog.self, from: start, to: end).map(MealExport.fields))
        case .exercise: (ExerciseExport.columns, try store.logs(ExerciseLog.self, from: start, to: end).map(ExerciseExport.fields))
        case .illness: (EpisodeExport.columns, try store.logs(IllnessEpisode.self, from: start, to: end).map(EpisodeExport.fields))
        case .stress: (EpisodeExport.columns, try store.logs(StressEpisode.self, from: start, to: end).map(EpisodeExport.fields))
        case .days:
            (
                DayExport.columns,
                try store.recentDays(Int(Int32.max)).reversed().filter { day in
                    let dayStart = day.date.start(in: store.timeZone)
                    return start.map { dayStart >= DayDate(instant: $0, timeZone: store.timeZone).start(in: store.timeZone) } ?? true
                        && end.map { dayStart < $0 } ?? true
                }.map(DayExport.fields)
            )
        }
    }

    /// Nightscout entries (glucose) or treatments (insulin, meals, exercise).
    func nightscout(_ store: SharedStore, from start: Date?, to end: Date?) throws -> [[String: ExportField]] {
        switch kind {
        case .glucose: preconditionFailure("glucose is streamed from the store's cursor by GlucoseExport")
        case .insulin: return try store.logs(InsulinLog.self, from: start, to: end).map(NightscoutExport.treatment)
        case .meal: return try store.logs(MealLog.self, from: start, to: end).map(NightscoutExport.treatment)
        case .exercise: return try store.logs(ExerciseLog.self, from: start, to: end).map(NightscoutExport.treatment)
        case .illness, .stress, .days:
            throw CLIError(
                "--format nightscout exports glucose (entries), insulin, meal or exercise (treatments), not \(kind.rawValue); use csv or json")
        }
    }
}
