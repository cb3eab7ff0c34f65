import ArgumentParser
import Foundation
import Setup

/// Options `install` and `uninstall` share.
struct InstallOptions: ParsableArguments {
    @Flag(
        help: ArgumentHelp(
            "--system: for the whole machine, needs root (the default for root). --user: for you alone (the default otherwise)."))
    var mode: InstallMode?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where the binary goes (PREFIX/bin): /usr/local for --system, ~/.local for --user.", valueName: "prefix"))
    var prefix: String?

    @Flag(name: .long, help: "Print every step and change nothing.")
    var dryRun = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Stage the files under this folder instead of / (for packaging); no command is run.", valueName: "folder"))
    var destdir: String?

    /// The mode, defaulting to the system for root and the user otherwise.
    var effectiveMode: InstallMode { mode ?? (geteuid() == 0 ? .system : .user) }

    func layout() throws -> InstallLayout {
        try InstallLayout(mode: effectiveMode, prefix: prefix, environment: ProcessInfo.processInfo.environment)
    }

    /// Runs `steps`, printing each; throws exit status 1 when one fails.
    func perform(_ verb: String, _ steps: [InstallAction], layout: InstallLayout) throws {
        if effectiveMode == .system, geteuid() != 0, !dryRun, destdir == nil {
            throw CLIError(SetupError.needsRoot.description)
        }
        print(
            "\(verb) glucobridge \(GlucoBridgeVersion.current) for the \(layout.mode == .system ? "system" : "user \(NSUserName())"), prefix \(layout.prefix)"
                + (dryRun ? " (dry run: nothing is changed)" : ""))
        let runner = InstallRunner(dryRun: dryRun, destdir: destdir, environment: ProcessInfo.processInfo.environment)
        guard runner.perform(steps, output: { print($0) }) else {
            FileHandle.standardError.write(Data("glucobridge: \(verb) did not finish; the steps above the failure were done\n".utf8))
            throw ExitCode(1)
        }
    }
}

extension InstallMode: EnumerableFlag {}

struct InstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Installs the binary, the udev rules and the systemd units, and reloads udev and systemd.",
        discussion: """
            --system (as root): readers are imported when plugged in (udev starts \
            glucobridge-import@.service), the daemon watches /var/lib/glucobridge/spool, all as the \
            unprivileged account glucobridge, into /var/lib/glucobridge/store.sqlite. --user: a user \
            daemon imports readers through libusb hotplug into ~/.local/share/glucobridge; the udev \
            rules still need root once (the command is printed).
            """)

    @OptionGroup var options: InstallOptions

    func run() throws {
        try reportingErrors {
            let layout = try options.layout()
            try options.perform("install", InstallPlan.install(layout, binarySource: Self.runningBinary), layout: layout)
        }
    }

    /// The path of this executable.
    static var runningBinary: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

struct UninstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall",
        abstract: "Removes what install put in place; the store and its data are kept.")

    @OptionGroup var options: InstallOptions

    func run() throws {
        try reportingErrors {
            let layout = try options.layout()
            try options.perform("uninstall", InstallPlan.uninstall(layout), layout: layout)
        }
    }
}
