import ArgumentParser
import Daemon
import Foundation

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Shows what the daemon is doing and the last import of every source.")

    @OptionGroup var storeOptions: StoreOptions

    func run() throws {
        try reportingErrors {
            print(try StatusReport.text(storePath: storeOptions.path))
        }
    }
}
