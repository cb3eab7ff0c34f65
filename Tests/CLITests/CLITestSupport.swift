import Foundation
import Model
import Store
import TestSupport
import XCTest

@testable import glucobridge

/// A store in a fresh temporary folder, for running commands on.
struct CLIStore {
    let folder: URL
    let store: SharedStore
    var path: String { store.path }

    init(zone: String = "America/Los_Angeles") throws {
        folder = try Fixtures.temporaryDirectory()
        store = try SharedStore(
            path: folder.appendingPathComponent("store.sqlite").path, timeZone: TimeZone(identifier: zone)!)
    }

    /// Parses `arguments` as the command line (after `glucobridge`) and returns what the command
    /// prints, run on this store.
    func run(_ arguments: [String]) throws -> String {
        let command = try GlucoBridge.parseAsRoot(arguments + ["--store", path])
        guard let command = command as? any StoreCommand else {
            throw CLIError("\(arguments.prefix(2).joined(separator: " ")) is not a command that prints a view")
        }
        return try command.output(store)
    }

    /// Imports the Dexcom G4 capture in `fixtures/` (23 readings on 2015-07-17 in Los Angeles
    /// and New York).
    func replayDexcomCapture() throws {
        var replay = try ReplayCommand.parse([Fixtures.url("dexcom/ecc1-g4-receiver.pcap").path, "--store", path])
        replay.storeOptions = try StoreOptions.parse(["--store", path])
        try replay.run()
    }

    /// Runs SQL through the `sqlite3` program and returns its output.
    func sqlite3(_ sql: String) throws -> String {
        let result = try Program.run(URL(fileURLWithPath: "/usr/bin/sqlite3"), ["-batch", path], input: sql)
        guard result.status == 0, result.stderr.isEmpty else { throw CLIError("sqlite3: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Runs programs: the built `glucobridge`, `sqlite3`.
enum Program {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `glucobridge` executable built beside the test bundle (`swift test` builds it).
    static func glucobridge() throws -> URL {
        var folders = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
        folders += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for folder in folders {
            let candidate = folder.appendingPathComponent("glucobridge")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw CLIError("the glucobridge executable is not built beside the tests (looked in \(folders.map(\.path))); run swift build")
    }

    static func run(_ executable: URL, _ arguments: [String], input: String = "") throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }
}

/// An instant from ISO 8601 text such as `2013-09-13T06:59:59Z`.
func utc(_ text: String) -> Date {
    ISO8601DateFormatter().date(from: text)!
}

/// The JSON printed by a command, as Foundation objects.
func jsonObject(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8))
}
