import ArgumentParser
import Foundation
import Store

struct DaysCommand: StoreCommand {
    static let onlyReads = true
    static let configuration = CommandConfiguration(
        commandName: "days",
        abstract:
            "Shows the most recent Days: glucose low / average / high, time in range, and whether each had a hypo, a hyper, exercise, stress or illness."
    )

    @Option(name: .long, help: "How many Days.")
    var last = 14

    @Flag(name: .long, help: "Only Days with a hypo.")
    var hypo = false

    @Flag(name: .long, help: "Only Days with a hyper.")
    var hyper = false

    @Flag(name: .long, help: "Only Days with exercise.")
    var exercise = false

    @Flag(name: .long, help: "Only Days a stress episode overlaps.")
    var stress = false

    @Flag(name: .long, help: "Only Days an illness episode overlaps.")
    var illness = false

    @Flag(name: .long, help: "Only favourite Days.")
    var favourites = false

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    var filter: DayFilter {
        var filter: DayFilter = []
        if hypo { filter.insert(.hadHypo) }
        if hyper { filter.insert(.hadHyper) }
        if exercise { filter.insert(.hadExercise) }
        if stress { filter.insert(.hadStress) }
        if illness { filter.insert(.hadIllness) }
        if favourites { filter.insert(.isFavourite) }
        return filter
    }

    func output(_ store: SharedStore) throws -> String {
        guard last >= 0 else { throw CLIError("--last must be 0 or more, not \(last)") }
        let days = try store.recentDays(last, filter: filter)
        if outputOptions.json { return try Format.json(days.map(DayJSON.init)) }
        guard !days.isEmpty else { return filter.isEmpty ? "no Days stored" : "no Days match" }
        let unit = try store.displayUnit()
        return DayPresentation.table(days, unit: unit).text + "\nglucose in \(unit.rawValue); Days in \(store.timeZone.identifier)"
    }
}
