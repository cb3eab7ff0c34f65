import ArgumentParser
import Foundation
import Model
import Store

struct LogGlucoseCommand: AddLogCommand {
    static let configuration = CommandConfiguration(
        commandName: "glucose", abstract: "Adds a glucose value read on a meter (tagged hypo / in range / hyper by the store).")

    @Option(name: .long, help: ArgumentHelp("When: \(TimeInput.help).", valueName: "time"))
    var at = "now"

    @Option(name: .long, help: "The value, in --unit.")
    var value: Double

    @Option(name: .long, help: "The unit of --value (default: the store's unit, see `config`).")
    var unit: GlucoseUnit?

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func log(at time: Date) -> GlucoseLog { GlucoseLog(time: time, value: value, unit: unit ?? .milligramsPerDeciliter) }

    /// In the store's unit unless `--unit` is given; a value no meter would show in that unit is refused.
    func output(_ store: SharedStore) throws -> String {
        var command = self
        if command.unit == nil { command.unit = try store.displayUnit() }
        try GlucoseInput.check(value, unit: command.unit ?? .milligramsPerDeciliter)
        return try command.addLog(store)
    }
}
