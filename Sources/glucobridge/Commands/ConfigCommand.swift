import ArgumentParser
import Foundation
import Model
import Store

struct ConfigCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Shows the store's settings, or sets the unit glucose is shown and typed in.",
        discussion: "The unit applies to every view, the report and `log glucose`; values are kept in mg/dL whatever it is.")

    @Option(name: .long, help: "The display unit: mg/dL or mmol/L.")
    var unit: GlucoseUnit?

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func output(_ store: SharedStore) throws -> String {
        if let unit { try store.setDisplayUnit(unit) }
        let unit = try store.displayUnit()
        let t = try store.thresholds()
        if outputOptions.json {
            return try Format.json(
                ConfigJSON(
                    timeZone: store.timeZone.identifier, unit: unit.rawValue,
                    thresholdsMgdl: ["very_low": t.veryLow, "low": t.low, "high": t.high, "very_high": t.veryHigh]))
        }
        let edges = [t.veryLow, t.low, t.high, t.veryHigh].map { Format.glucose(Double($0), unit: unit) }.joined(separator: " / ")
        return """
            time zone   \(store.timeZone.identifier)
            unit        \(unit.rawValue)
            thresholds  \(edges) \(unit.rawValue) (very low / low / high / very high)
            """
    }
}

/// `config --json`.
struct ConfigJSON: Encodable {
    var timeZone: String
    var unit: String
    var thresholdsMgdl: [String: Int]
}
