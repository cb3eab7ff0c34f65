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
