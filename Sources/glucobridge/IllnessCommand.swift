import ArgumentParser
import Foundation
import Store

struct IllnessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "illness", abstract: "Starts or stops an illness episode (at most one is open at a time).",
        subcommands: [Start.self, Stop.self])

    struct Start: StoreCommand {
        static let configuration = CommandConfiguration(abstract: "Starts an illness episode.")

        @Option(name: .long, help: ArgumentHelp("When it started: \(TimeInput.help).", valueName: "time"))
        var at = "now"

        @OptionGroup var outputOptions: OutputOptions
        @OptionGroup var storeOptions: StoreOptions

        func run() throws { try runOnStore() }

        func output(_ store: SharedStore) throws -> String {
            try EpisodeReport.start(.illness, at: at, store: store, json: outputOptions.json)
        }
    }

    struct Stop: StoreCommand {
        static let configuration = CommandConfiguration(abstract: "Ends the open illness episode.")

        @Option(name: .long, help: ArgumentHelp("When it ended: \(TimeInput.help).", valueName: "time"))
        var at = "now"

        @OptionGroup var outputOptions: OutputOptions
        @OptionGroup var storeOptions: StoreOptions

        func run() throws { try runOnStore() }

        func output(_ store: SharedStore) throws -> String {
            try EpisodeReport.stop(.illness, at: at, store: store, json: outputOptions.json)
        }
    }
}
