import ArgumentParser
import Foundation
import Store

struct LogInsulinCommand: AddLogCommand {
    static let configuration = CommandConfiguration(commandName: "insulin", abstract: "Adds an insulin dose.")

    @Option(name: .long, help: ArgumentHelp("When: \(TimeInput.help).", valueName: "time"))
    var at = "now"

    @Option(name: .long, help: "The dose, in units.")
    var units: Double

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func log(at time: Date) -> InsulinLog { InsulinLog(time: time, units: units) }
}
