import ArgumentParser
import Foundation
import Store

struct LogInsulinCommand: StoreCommand {
    static let configuration = CommandConfiguration(commandName: "insulin", abstract: "Adds an insulin dose.")

    @Option(name: .long, help: ArgumentHelp("When: \(TimeInput.help).", valueName: "time"))
    var at = "now"

    @Option(name: .long, help: "The dose, in units.")
    var units: Double

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func run() throws { try runOnStore() }

    func output(_ store: SharedStore) throws -> String {
        let time = try TimeInput.instant(at, zone: store.timeZone)
        return try LogReport.text(
            "added", try store.add(InsulinLog(time: time, units: units)), zone: store.timeZone, json: outputOptions.json)
    }
}
