import ArgumentParser
import Foundation
import Store

struct DaysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "days", abstract: "Shows the most recent Days with their glucose low / average / high and flags.")

    @Option(name: .long, help: "How many Days.")
    var last = 14

    @Flag(name: .long, help: "Only Days with a hypo.")
    var hypo = false

    @Flag(name: .long, help: "Only Days with a hyper.")
    var hyper = false

    @OptionGroup var storeOptions: StoreOptions

    func run() throws {
        try reportingErrors {
            let store = try storeOptions.open()
            var filter: DayFilter = []
            if hypo { filter.insert(.hadHypo) }
            if hyper { filter.insert(.hadHyper) }
            let days = try store.recentDays(last, filter: filter)
            guard !days.isEmpty else {
                print("no Days stored")
                return
            }
            print(Self.row(["day", "readings", "low", "avg", "high", "hypo", "hyper", "exercise"]))
            for day in days {
                func value(_ v: Double?) -> String { v.map { String(Int($0.rounded())) } ?? "-" }
                func flag(_ f: Bool) -> String { f ? "yes" : "-" }
                print(Self.row([
                    day.date.description, String(day.glucoseCount), value(day.low), value(day.average), value(day.high),
                    flag(day.hadHypo), flag(day.hadHyper), flag(day.hadExercise),
                ]))
            }
        }
    }

    /// One aligned table row: the Day left-aligned, numbers right-aligned, flags left-aligned.
    static func row(_ cells: [String]) -> String {
        let widths = [10, 9, 5, 5, 5, 5, 6, 9]
        return cells.enumerated().map { index, cell in
            let padding = String(repeating: " ", count: max(0, widths[index] - cell.count))
            return (1...4).contains(index) ? padding + cell : cell + padding
        }.joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }
}
