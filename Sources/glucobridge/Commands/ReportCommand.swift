import ArgumentParser
import Foundation
import GlucoseMetrics
import Model
import Report
import Store

struct ReportCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Writes the AGP report of a period (default: the last 14 Days) as one self-contained HTML page.",
        discussion: """
            The page has the consensus metrics with their targets, the time-in-ranges bar, the \
            ambulatory glucose profile, one small profile per Day with exercise, meals and \
            insulin (over four weeks: a summary of each week and the profiles of the last 28 \
            Days), and the hypoglycaemia events. It has no script and loads nothing: open it \
            in any browser, or print it (the first page fits one A4 or Letter sheet).
            """)

    @OptionGroup var periodOptions: PeriodOptions

    @Option(name: .long, help: ArgumentHelp("The HTML file to write.", valueName: "file.html"))
    var output: String

    @Option(name: .long, help: "The unit of the axes and values (default: the store's unit, see `config`).")
    var unit: GlucoseUnit?

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func output(_ store: SharedStore) throws -> String {
        let period = try periodOptions.period(store)
        let input = try ReportInput(store: store, period: period, unit: try unit ?? store.displayUnit())
        let url = URL(fileURLWithPath: output)
        do {
            try Data(ReportPage.html(input).utf8).write(to: url, options: .atomic)
        } catch {
            throw CLIError("cannot write the report to \(output): \(error.localizedDescription)")
        }
        let cgm = input.readings.filter { $0.kind == .sensor }.count
        let days = DayDate(instant: period.start, timeZone: store.timeZone)
        let last = DayDate(instant: period.end.addingTimeInterval(-0.001), timeZone: store.timeZone)
        if outputOptions.json {
            return try Format.json(ReportJSON(output: url.path, from: Format.utc(period.start), to: Format.utc(period.end), readings: cgm))
        }
        return "wrote \(output): \(days) to \(last) (\(store.timeZone.identifier)), \(cgm) CGM readings"
    }
}

/// `report --json`.
struct ReportJSON: Encodable {
    var output: String
    var from: String
    var to: String
    var readings: Int
}
