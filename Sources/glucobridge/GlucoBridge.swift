import ArgumentParser
import Daemon
import Foundation
import Logging
import Setup

@main
struct GlucoBridge: AsyncParsableCommand {
    /// Logs go to stderr; the level comes from `GLUCOBRIDGE_LOG_LEVEL` (trace … critical),
    /// warnings by default so a command's stdout stays its report. The daemon logs at info by
    /// default, one line per event (with a syslog priority under systemd's journal).
    static func main() async {
        do {
            var command = try parseAsRoot()
            let isDaemon = command is DaemonCommand
            if isDaemon { DaemonCommand.takeOverConcurrencyExecutor() }
            let level =
                ProcessInfo.processInfo.environment["GLUCOBRIDGE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
                ?? (isDaemon ? .info : .warning)
            LoggingSystem.bootstrap { label in
                if isDaemon { return LineLogHandler(label: label, level: level, forJournal: LineLogHandler.stderrIsJournal) }
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "glucobridge",
        abstract: "Reads CGM receivers and meters into the shared diabetes self-care store.",
        discussion: """
            Plug a supported reader in and run `glucobridge import`, or replay a capture of a \
            device session with `glucobridge replay CAPTURE`. Readings land in the store as \
            Glucose logs on their Day, tagged hypo / in range / hyper.
            """,
        version: GlucoBridgeVersion.current,
        subcommands: [
            DevicesCommand.self, ScanCommand.self, ImportCommand.self, ReplayCommand.self, ExportCommand.self,
            DaysCommand.self, DayCommand.self, LogCommand.self, EditCommand.self, RemoveCommand.self,
            IllnessCommand.self, StressCommand.self, FavouriteCommand.self, ProfileCommand.self, StatsCommand.self, ReportCommand.self,
            ConfigCommand.self,
            DaemonCommand.self, StatusCommand.self, DoctorCommand.self, InstallCommand.self, UninstallCommand.self,
            SyncCommand.self,
        ])
}

/// Options every command that opens the store shares.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store file.", valueName: "path"))
    var store: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The time zone Days are counted in, set when the store is created (default: the system zone).",
            valueName: "zone"))
    var tz: String?

    /// `--store`, else `$XDG_DATA_HOME/glucobridge/store.sqlite`, else `~/.local/share/glucobridge/store.sqlite`.
    var path: String {
        if let store { return store }
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
        return (base as NSString).appendingPathComponent("glucobridge/store.sqlite")
    }

    func timeZone() throws -> TimeZone? {
        guard let tz else { return nil }
        guard let zone = TimeZone(identifier: tz) else {
            throw CLIError("unknown time zone \"\(tz)\"; use an IANA name such as Europe/Berlin or America/Los_Angeles")
        }
        return zone
    }
}

/// A failure reported as one line on stderr with exit status 1.
struct CLIError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

extension ParsableCommand {
    /// Runs `body`; any error becomes one plain line on stderr and exit status 1.
    func reportingErrors(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as ExitCode {
            throw error
        } catch {
            FileHandle.standardError.write(Data("glucobridge: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
