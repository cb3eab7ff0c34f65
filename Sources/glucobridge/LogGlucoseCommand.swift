import ArgumentParser
import Foundation
import Model
import Store

struct LogGlucoseCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "glucose", abstract: "Adds a glucose value read on a meter (tagged hypo / in range / hyper by the store).")

    @Option(name: .long, help: ArgumentHelp("When: \(TimeInput.help).", valueName: "time"))
    var at = "now"

    @Option(name: .long, help: "The value, in --unit.")
    var value: Double

    @Option(name: .long, help: "The unit of --value.")
    var unit: GlucoseUnit = .milligramsPerDeciliter

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func run() throws { try runOnStore() }

    func output(_ store: SharedStore) throws -> String {
        let time = try TimeInput.instant(at, zone: store.timeZone)
        return try LogReport.text(
            "added", try store.add(GlucoseLog(time: time, value: value, unit: unit)), zone: store.timeZone,
            json: outputOptions.json)
    }
}
