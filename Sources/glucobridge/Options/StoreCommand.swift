import ArgumentParser
import Foundation
import Model
import Store

/// A command that works on the store and prints one report: text for a terminal, or JSON. Its
/// `run` is ``runOnStore()`` unless it declares its own.
protocol StoreCommand: ParsableCommand {
    var storeOptions: StoreOptions { get }
    /// Does the command's work on `store` and returns what it prints.
    func output(_ store: SharedStore) throws -> String
    /// True for a view: the store is then never created or migrated (`StoreOptions.openExisting`).
    static var onlyReads: Bool { get }
}

extension StoreCommand {
    func run() throws { try runOnStore() }

    static var onlyReads: Bool { false }

    /// Opens the store, runs the command and prints its report; an error is one line on stderr
    /// and exit status 1.
    func runOnStore() throws {
        try reportingErrors {
            let store = try Self.onlyReads ? storeOptions.openExisting() : storeOptions.open()
            print(try output(store))
        }
    }
}

/// `--json`, shared by every command that prints a view.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON for scripts instead of text.")
    var json = false
}

extension LogKind: ExpressibleByArgument {}
extension ExerciseIntensity: ExpressibleByArgument {}
extension GlucoseUnit: ExpressibleByArgument {}
