import ArgumentParser
import Foundation
import Model
import Store

struct DayCommand: StoreCommand {
    static let onlyReads = true
    static let configuration = CommandConfiguration(
        commandName: "day", abstract: "Shows one Day's summary and its logs in time order, with their ids.")

    @OptionGroup var date: DayArgument

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func output(_ store: SharedStore) throws -> String {
        let zone = store.timeZone
        let day = try date.day(zone: zone)
        let summary = try store.summary(of: day)
        let logs = try store.logs(of: day)
        let unit = try store.displayUnit()
        let entries = DayEntry.all(logs, zone: zone, unit: unit)
        if outputOptions.json {
            return try Format.json(
                DayView(
                    day: day.description, timeZone: zone.identifier, summary: summary.map(DayJSON.init),
                    logs: entries.map(\.record)))
        }
        guard let summary else { return "\(day): no logs (the store has no such Day)" }
        var lines = ["\(day) (\(zone.identifier)): \(DayPresentation.line(summary, unit: unit))"]
        guard !entries.isEmpty else { return (lines + ["no logs"]).joined(separator: "\n") }
        // On a Day the clocks change, a wall-clock time may occur twice: show the offsets.
        let offsets = Set(entries.map { zone.secondsFromGMT(for: $0.time) })
        var table = TextTable([("time", .left), ("log", .left), ("id", .right), ("what", .left)])
        for entry in entries {
            table.append([
                Format.localTime(entry.time, zone: zone, withOffset: offsets.count > 1), entry.kind.rawValue,
                String(entry.id), entry.details,
            ])
        }
        lines += table.lines
        return lines.joined(separator: "\n")
    }
}

/// The Day a command is about (`day`, `favourite`).
struct DayArgument: ParsableArguments {
    @Argument(help: "YYYY-MM-DD, today or yesterday (in the store's zone).")
    var date: String

    /// The Day named, counted in `zone`.
    func day(zone: TimeZone) throws -> DayDate { try TimeInput.day(date, zone: zone) }
}

/// `day --json`.
struct DayView: Encodable {
    var day: String
    var timeZone: String
    var summary: DayJSON?
    var logs: [LogJSON]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(day, forKey: .day)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(summary, forKey: .summary)
        try container.encode(logs, forKey: .logs)
    }

    private enum CodingKeys: String, CodingKey {
        case day, timeZone, summary, logs
    }
}

/// One log of any kind in a Day's list.
struct DayEntry {
    var time: Date
    var kind: LogKind
    var id: Int64
    var details: String
    var record: LogJSON

    init<Log: PresentableLog>(_ stored: Stored<Log>, zone: TimeZone, unit: GlucoseUnit) {
        time = stored.log.time
        kind = Log.kind
        id = stored.id.rawValue
        details = stored.details(zone: zone, unit: unit)
        record = stored.record
    }

    /// Every log of the Day, by time; logs at the same instant in the order glucose, insulin,
    /// meal, exercise, illness, stress, then by id.
    static func all(_ logs: DayLogs, zone: TimeZone, unit: GlucoseUnit) -> [DayEntry] {
        let entries =
            logs.glucose.map { DayEntry($0, zone: zone, unit: unit) } + logs.insulin.map { DayEntry($0, zone: zone, unit: unit) }
            + logs.meals.map { DayEntry($0, zone: zone, unit: unit) } + logs.exercise.map { DayEntry($0, zone: zone, unit: unit) }
            + logs.illness.map { DayEntry($0, zone: zone, unit: unit) } + logs.stress.map { DayEntry($0, zone: zone, unit: unit) }
        let order = Dictionary(uniqueKeysWithValues: LogKind.allCases.enumerated().map { ($1, $0) })
        return entries.enumerated().sorted { a, b in
            (a.element.time, order[a.element.kind]!, a.element.id) < (b.element.time, order[b.element.kind]!, b.element.id)
        }.map(\.element)
    }
}
