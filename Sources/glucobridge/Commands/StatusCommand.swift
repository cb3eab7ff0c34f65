import ArgumentParser
import Daemon
import Foundation
import Store

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Shows what the daemon is doing and the last import of every source.")

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func run() throws {
        try reportingErrors {
            guard outputOptions.json else {
                print(try StatusReport.text(storePath: storeOptions.path))
                return
            }
            let path = storeOptions.path
            let exists = FileManager.default.fileExists(atPath: path)
            // A view never creates a store: the last imports are read only from one that exists.
            let runs = exists ? try SharedStore(path: path).latestImportRuns() : []
            print(
                try Format.json(
                    StatusJSON(
                        store: path, storeExists: exists, daemon: DaemonState.read(forStore: path),
                        lastImports: runs.map { run in
                            StatusJSON.Import(
                                source: run.source.description, model: run.source.model, finished: Format.utc(run.finishedAt),
                                mode: run.mode, origin: run.origin, recordsRead: run.recordsRead, added: run.added,
                                alreadyStored: run.alreadyStored, skipped: run.skipped)
                        })))
        }
    }
}

/// `status --json`: the daemon's state file as it is, and the last import of every source.
struct StatusJSON: Encodable {
    struct Import: Encodable {
        var source: String
        var model: String?
        var finished: String
        var mode: ImportMode
        var origin: String?
        var recordsRead: Int
        var added: Int
        var alreadyStored: Int
        var skipped: Int
    }

    var store: String
    var storeExists: Bool
    var daemon: DaemonState?
    var lastImports: [Import]
}
