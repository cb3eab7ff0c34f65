import ArgumentParser
import Foundation
import Store

struct StressCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stress", abstract: "Starts or stops a stress episode (at most one is open at a time).",
        subcommands: [Start.self, Stop.self])

    struct Start: StoreCommand {
        static let configuration = CommandConfiguration(abstract: "Starts a stress episode.")

        @Option(name: .long, help: ArgumentHelp("When it started: \(TimeInput.help).", valueName: "time"))
        var at = "now"

        @OptionGroup var outputOptions: OutputOptions
        @OptionGroup var storeOptions: StoreOptions

        func run() throws { try runOnStore() }

        func output(_ store: SharedStore) throws -> String {
            try EpisodeReport.start(.stress, at: at, store: store, json: outputOptions.json)
        }
    }

    struct Stop: StoreCommand {
        static let configuration = CommandConfiguration(abstract: "Ends the open stress episode.")

        @Option(name: .long, help: ArgumentHelp("When it ended: \(TimeInput.help).", valueName: "time"))
        var at = "now"

        @OptionGroup var outputOptions: OutputOptions
        @OptionGroup var storeOptions: StoreOptions

        func run() throws { try runOnStore() }

        func output(_ store: SharedStore) throws -> String {
            try EpisodeReport.stop(.stress, at: at, store: store, json: outputOptions.json)
        }
    }
}
