import Export
import Foundation
import Model
import Store
import TestSupport
import XCTest

@testable import glucobridge

/// A store in a fresh temporary folder, for running commands on.
package struct CLIStore {
    package let folder: URL
    package let store: SharedStore
    package var path: String { store.path }

    package init(zone: String = "America/Los_Angeles") throws {
        folder = try Fixtures.temporaryDirectory()
        store = try SharedStore(
            path: folder.appendingPathComponent("store.sqlite").path, timeZone: TimeZone(identifier: zone)!)
    }

    /// Parses `arguments` as the command line (after `glucobridge`) and returns what the command
    /// prints, run on this store.
    package func run(_ arguments: [String]) throws -> String {
        let command = try GlucoBridge.parseAsRoot(arguments + ["--store", path])
        guard let command = command as? any StoreCommand else {
            throw CLIError("\(arguments.prefix(2).joined(separator: " ")) is not a command that prints a view")
        }
        return try command.output(store)
    }

    /// Imports the Dexcom G4 capture in `fixtures/` (23 readings on 2015-07-17 in Los Angeles
    /// and New York).
    package func replayDexcomCapture() throws {
        var replay = try ReplayCommand.parse([Fixtures.url("dexcom/ecc1-g4-receiver.pcap").path, "--store", path])
        replay.storeOptions = try StoreOptions.parse(["--store", path])
        try replay.run()
    }

    /// Runs SQL through the `sqlite3` program and returns its output.
    package func sqlite3(_ sql: String) throws -> String {
        try TestSupport.sqlite3(path, sql)
    }
}

/// The JSON printed by a command, as Foundation objects.
package func jsonObject(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8))
}

/// What `glucobridge export` writes with `arguments` (no --from, --to) on `store`, run in this
/// process into memory.
package func exported(_ arguments: [String], _ store: SharedStore) throws -> String {
    var output = ExportOutput.inMemory()
    try ExportCommand.parse(arguments).write(store, from: nil, to: nil, to: &output)
    return String(decoding: output.bytes, as: UTF8.self)
}
