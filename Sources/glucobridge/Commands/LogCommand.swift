import ArgumentParser
import Foundation
import Store

struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Adds a meal, an insulin dose, an exercise session or a glucose value to the Day of its time.",
        subcommands: [LogMealCommand.self, LogInsulinCommand.self, LogExerciseCommand.self, LogGlucoseCommand.self])
}

/// A subcommand of `log`: adds the one log its options describe, at `--at`.
protocol AddLogCommand: StoreCommand {
    associatedtype Log: PresentableLog
    /// `--at`, as typed.
    var at: String { get }
    var outputOptions: OutputOptions { get }
    /// The log the options describe, at `time`.
    func log(at time: Date) -> Log
}

extension AddLogCommand {
    func output(_ store: SharedStore) throws -> String { try addLog(store) }

    /// Adds the log and reports it.
    func addLog(_ store: SharedStore) throws -> String {
        let time = try TimeInput.instant(at, zone: store.timeZone)
        return try LogReport.text("added", try store.add(log(at: time)), store: store, json: outputOptions.json)
    }
}

/// What `log`, `edit` and the episode commands print about the log they wrote.
enum LogReport {
    /// `added meal #3 on 2013-09-13 at 07:30: Oatmeal: 45 g carbs, …` (in the store's zone, glucose
    /// also in its display unit), or the log's JSON object.
    static func text<Log: PresentableLog>(_ verb: String, _ stored: Stored<Log>, store: SharedStore, json: Bool) throws -> String {
        if json { return try Format.json(stored.record) }
        return "\(verb) \(stored.label) on \(stored.day) at \(Format.localTime(stored.log.time, zone: store.timeZone)): "
            + stored.details(zone: store.timeZone, unit: try store.displayUnit())
    }
}
