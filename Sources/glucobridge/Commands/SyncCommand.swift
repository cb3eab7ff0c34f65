import ArgumentParser
import Daemon
import Foundation
import Logging
import Store
import Sync

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sends what a central PostgreSQL does not hold yet of the store, under a patient id.",
        discussion: """
            The password comes from --password-file, else PGPASSWORD, else ~/.pgpass (or \
            PGPASSFILE; ignored unless only its owner may read it), never from the command line. \
            sslmode=require in the address turns TLS on; verify-ca and verify-full also check the \
            server's certificate against sslrootcert=PATH (or ~/.postgresql/root.crt). The first \
            sync creates the central schema. Each batch is one server transaction that also moves \
            the patient's cursor: a sync stopped at any point resumes where it stopped, and a \
            second sync of an unchanged store sends nothing. Edits and removals made in the app \
            reach the server, and new glucose thresholds re-tag the readings and logs sent before. A second sync of the same patient while one runs is refused (after --lock-wait seconds).
            """)

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The server: postgresql://USER@HOST[:PORT]/DATABASE[?sslmode=require|verify-full&sslrootcert=PATH].",
            valueName: "url"))
    var to: String

    @Option(name: .long, help: ArgumentHelp("The patient id this store belongs to on the server.", valueName: "id"))
    var patient: String

    @Option(name: .long, help: ArgumentHelp("A file whose first line is the server password.", valueName: "file"))
    var passwordFile: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Seconds to wait for another sync of the same patient to end before refusing.", valueName: "seconds"))
    var lockWait = 10

    @Option(name: .long, help: .hidden)
    var batchSize = 5000

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        do {
            let target = try SyncTarget(url: to)
            var lookup = PasswordLookup(passwordFile: passwordFile)
            let password = try lookup.password(for: target)
            for warning in lookup.warnings { FileHandle.standardError.write(Data("glucobridge: \(warning)\n".utf8)) }
            guard FileManager.default.fileExists(atPath: storeOptions.path) else {
                throw CLIError("the store \(storeOptions.path) does not exist: nothing to sync (give --store PATH)")
            }
            let store = try storeOptions.open(access: .concurrent)
            let sync = try StoreSync(
                store: store, target: target, password: password, patient: patient, batchSize: batchSize,
                lockWait: .seconds(max(0, lockWait)))
            print(try await sync.run().summary)
        } catch {
            FileHandle.standardError.write(Data("glucobridge: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

/// The daemon's `--sync-to`, `--patient` and `--password-file`.
struct DaemonSyncOptions: ParsableArguments {
    @Option(
        name: .customLong("sync-to"),
        help: ArgumentHelp(
            "Sync the store to this PostgreSQL server after every import (as `glucobridge sync --to`); retried with back-off while it is unreachable.",
            valueName: "url"))
    var syncTo: String?

    @Option(name: .long, help: ArgumentHelp("The patient id for --sync-to.", valueName: "id"))
    var patient: String?

    @Option(name: .long, help: ArgumentHelp("A file whose first line is the password for --sync-to.", valueName: "file"))
    var passwordFile: String?

    func validate() throws {
        if syncTo != nil, patient == nil { throw ValidationError("--sync-to needs --patient ID") }
        if syncTo == nil, patient != nil || passwordFile != nil {
            throw ValidationError("--patient and --password-file go with --sync-to URL")
        }
    }

    /// The uploader for the daemon, or nil without `--sync-to`.
    func uploader(store: SharedStore, logger: Logger) throws -> (any StoreUploader)? {
        guard let syncTo, let patient else { return nil }
        let target = try SyncTarget(url: syncTo)
        var lookup = PasswordLookup(passwordFile: passwordFile)
        let password = try lookup.password(for: target)
        for warning in lookup.warnings { logger.warning("\(warning)") }
        return PostgresUploader(
            sync: try StoreSync(store: store, target: target, password: password, patient: patient), name: "\(target.display) as \(patient)")
    }
}

/// The daemon's sync: ``StoreSync`` run again after every change.
struct PostgresUploader: StoreUploader {
    let sync: StoreSync
    let name: String

    func upload() async throws -> String {
        try await sync.run().summary
    }
}
