import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Who glucobridge is installed for.
///
/// - `system` (the supported way to import on plug-in): the binary, udev rules, the service
///   account and both system units. udev starts `glucobridge-import@.service` for every reader
///   plugged in, and `glucobridge.service` runs the daemon for the spool folder and Bluetooth.
///   Both run as the unprivileged account `glucobridge`; only a system unit can grant the
///   daemon the Bluetooth capabilities. The store is `/var/lib/glucobridge/store.sqlite`, shared
///   with the members of group `glucobridge`.
/// - `user`: no root needed. The binary and a user unit whose daemon imports readers through
///   libusb hotplug (the udev rules, which need root once, give the logged-in user access) and
///   watches a spool folder, into the store in `~/.local/share/glucobridge`. No capabilities, so
///   no Bluetooth in the background.
package enum InstallMode: String, Sendable, CaseIterable {
    case system, user
}

/// Where everything goes for one mode and prefix.
package struct InstallLayout: Sendable, Equatable {
    package var mode: InstallMode
    /// The binary goes to `prefix/bin`.
    package var prefix: String
    package var home: String
    /// `$XDG_CONFIG_HOME`, else `~/.config` (user units go to its `systemd/user`).
    package var configHome: String

    /// - Parameters:
    ///   - prefix: `/usr/local` for the system and `~/.local` for a user when nil.
    ///   - environment: where `HOME` and `XDG_CONFIG_HOME` are read.
    package init(mode: InstallMode, prefix: String?, environment: [String: String]) throws(SetupError) {
        self.mode = mode
        home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "\(home)/.config"
        let chosen = prefix ?? (mode == .system ? "/usr/local" : "\(home)/.local")
        self.prefix = try Self.validated(prefix: chosen)
    }

    package var binary: String { "\(prefix)/bin/glucobridge" }

    /// The binary path written into `ExecStart=`: `%h/.local/bin/glucobridge` stays as in the
    /// repository's user unit when that is where the binary goes.
    package var execBinary: String {
        mode == .user && binary == "\(home)/.local/bin/glucobridge" ? "%h/.local/bin/glucobridge" : binary
    }

    /// Whether the system files go where a distribution's package puts them (`/usr/lib/...`),
    /// leaving `/etc` to the administrator: a system install with the prefix `/usr`, as the
    /// Debian package is staged (`debian/rules`). Any other system install is the
    /// administrator's own and goes to `/etc`.
    package var isDistributionLayout: Bool { mode == .system && prefix == "/usr" }

    package var unitFolder: String {
        switch mode {
        case .system: isDistributionLayout ? "/usr/lib/systemd/system" : "/etc/systemd/system"
        case .user: "\(configHome)/systemd/user"
        }
    }

    /// The system's rules file, or for a user install the copy beside the binary's share folder
    /// that an administrator installs with the printed command.
    package var rulesPath: String {
        switch mode {
        case .system: "\(isDistributionLayout ? "/usr/lib" : "/etc")/udev/rules.d/60-glucobridge.rules"
        case .user: "\(prefix)/share/glucobridge/60-glucobridge.rules"
        }
    }

    /// The `sysusers.d` file that declares the account `glucobridge`.
    package var sysusersPath: String { "\(isDistributionLayout ? "/usr/lib" : "/etc")/sysusers.d/glucobridge.conf" }

    /// The folder of the store the units use.
    package var storeFolder: String { mode == .system ? "/var/lib/glucobridge" : "\(home)/.local/share/glucobridge" }

    /// The units this mode installs.
    package var units: [SystemFile] { mode == .system ? [.importUnit, .daemonUnit] : [.userDaemonUnit] }

    static func validated(prefix: String) throws(SetupError) -> String {
        guard prefix.hasPrefix("/") else { throw .invalidPrefix(prefix, "it must be an absolute path") }
        if let bad = prefix.first(where: { $0.isWhitespace || "%\"'\\$;`".contains($0) }) {
            throw .invalidPrefix(prefix, "systemd unit lines cannot carry the character \"\(bad)\" in a path")
        }
        var trimmed = prefix
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }
}

/// One step of an install or uninstall.
package enum InstallAction: Sendable, Equatable, CustomStringConvertible {
    /// Copies the running binary (mode 0755), replacing the target atomically.
    case copyBinary(from: String, to: String)
    /// Writes one of the system files (mode 0644), rendered for this install.
    case write(SystemFile, to: String, text: String)
    case makeFolder(String)
    case remove(String)
    /// Runs a command; when `required` is false a failure is reported and the steps go on.
    case run([String], required: Bool)
    case note(String)

    package var description: String {
        switch self {
        case .copyBinary(let from, let to): "copy \(from) to \(to) (mode 0755)"
        case .write(let file, let to, _): "write \(to) (mode 0644) from \(file.repositoryPath)"
        case .makeFolder(let path): "create folder \(path)"
        case .remove(let path): "remove \(path)"
        case .run(let command, _): "run \(command.joined(separator: " "))"
        case .note(let text): "note: \(text)"
        }
    }
}

/// The steps of `glucobridge install` and `uninstall`, decided before anything is done so that
/// `--dry-run` shows exactly what a real run does.
package enum InstallPlan {
    package static func install(_ layout: InstallLayout, binarySource: String) -> [InstallAction] {
        var steps: [InstallAction] = []
        if resolved(binarySource) == resolved(layout.binary) {
            steps.append(.note("\(layout.binary) is this binary already; it is kept"))
        } else {
            steps.append(.copyBinary(from: binarySource, to: layout.binary))
        }
        let units = layout.units.map {
            InstallAction.write($0, to: "\(layout.unitFolder)/\($0.installedName)", text: $0.rendered(binaryPath: layout.execBinary))
        }
        switch layout.mode {
        case .system:
            steps.append(.write(.sysusers, to: layout.sysusersPath, text: SystemFile.sysusers.contents))
            steps.append(.run(["systemd-sysusers", layout.sysusersPath], required: true))
            steps += units
            steps.append(.write(.udevRules, to: layout.rulesPath, text: SystemFile.udevRules.contents))
            steps.append(.run(["udevadm", "control", "--reload"], required: true))
            steps.append(.run(["udevadm", "trigger", "--action=change", "--subsystem-match=usb", "--subsystem-match=tty"], required: true))
            steps.append(.run(["systemctl", "daemon-reload"], required: true))
            steps.append(.run(["systemctl", "enable", "--now", "glucobridge.service"], required: true))
            steps.append(
                .note(
                    "readers plugged in from now on are imported into \(layout.storeFolder)/store.sqlite; "
                        + "to let a user's app read and write it: sudo usermod -aG glucobridge USER"))
        case .user:
            steps.append(.makeFolder("\(layout.storeFolder)/spool"))
            steps += units
            steps.append(.write(.udevRules, to: layout.rulesPath, text: SystemFile.udevRules.contents))
            steps.append(.run(["systemctl", "--user", "daemon-reload"], required: true))
            steps.append(.run(["systemctl", "--user", "enable", "--now", "glucobridge.service"], required: true))
            steps.append(
                .note(
                    "the udev rules need root once, to give you access to the readers: sudo install -m 0644 \(layout.rulesPath) "
                        + "/etc/udev/rules.d/ && sudo udevadm control --reload && sudo udevadm trigger --action=change --subsystem-match=usb"))
        }
        return steps
    }

    package static func uninstall(_ layout: InstallLayout) -> [InstallAction] {
        var steps: [InstallAction] = []
        switch layout.mode {
        case .system:
            steps.append(.run(["systemctl", "disable", "--now", "glucobridge.service"], required: false))
            steps += layout.units.map { .remove("\(layout.unitFolder)/\($0.installedName)") }
            steps.append(.remove(layout.rulesPath))
            steps.append(.remove(layout.sysusersPath))
            steps.append(.remove(layout.binary))
            steps.append(.run(["systemctl", "daemon-reload"], required: true))
            steps.append(.run(["udevadm", "control", "--reload"], required: true))
            steps.append(
                .note(
                    "the store in \(layout.storeFolder) and the account glucobridge are kept; remove them with "
                        + "sudo rm -r \(layout.storeFolder) && sudo userdel glucobridge when they are no longer wanted"))
        case .user:
            steps.append(.run(["systemctl", "--user", "disable", "--now", "glucobridge.service"], required: false))
            steps += layout.units.map { .remove("\(layout.unitFolder)/\($0.installedName)") }
            steps.append(.remove(layout.rulesPath))
            steps.append(.remove(layout.binary))
            steps.append(.run(["systemctl", "--user", "daemon-reload"], required: true))
            steps.append(
                .note(
                    "the store in \(layout.storeFolder) is kept; if you installed the udev rules: "
                        + "sudo rm /etc/udev/rules.d/60-glucobridge.rules && sudo udevadm control --reload"))
        }
        return steps
    }

    static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}

/// Carries out install steps, printing each before it is done.
package struct InstallRunner {
    /// Prints the steps and does nothing.
    package var dryRun: Bool
    /// Stages every file under this folder (as packagers' `DESTDIR`) and runs no commands.
    package var destdir: String?
    /// Where commands are looked up.
    package var searchPath: [String]

    package init(dryRun: Bool, destdir: String?, environment: [String: String]) {
        self.dryRun = dryRun
        self.destdir = destdir
        searchPath =
            (environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
    }

    /// Performs `steps` in order; stops at the first failure of a required step. Returns whether
    /// every required step succeeded.
    package func perform(_ steps: [InstallAction], output: (String) -> Void) -> Bool {
        for step in steps {
            if case .run = step, destdir != nil, !dryRun {
                output("skip (files staged in \(destdir!)): \(step)")
                continue
            }
            output(staged(step).description)
            guard !dryRun else { continue }
            do {
                try perform(step)
            } catch {
                if case .run(_, required: false) = step {
                    output("  failed, continuing: \(error)")
                    continue
                }
                output("  failed: \(error)")
                return false
            }
        }
        return true
    }

    /// The step with its paths under `destdir`.
    func staged(_ step: InstallAction) -> InstallAction {
        guard let destdir else { return step }
        let root = destdir.hasSuffix("/") ? String(destdir.dropLast()) : destdir
        switch step {
        case .copyBinary(let from, let to): return .copyBinary(from: from, to: root + to)
        case .write(let file, let to, let text): return .write(file, to: root + to, text: text)
        case .makeFolder(let path): return .makeFolder(root + path)
        case .remove(let path): return .remove(root + path)
        case .run, .note: return step
        }
    }

    private func perform(_ step: InstallAction) throws(SetupError) {
        let fileManager = FileManager.default
        switch staged(step) {
        case .copyBinary(let from, let to):
            guard let data = fileManager.contents(atPath: from) else { throw .fileFailed(from, "cannot read it") }
            try writeAtomically(data, to: to, permissions: 0o755)
        case .write(_, let to, let text):
            try writeAtomically(Data(text.utf8), to: to, permissions: 0o644)
        case .makeFolder(let path):
            do {
                try fileManager.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw .fileFailed(path, Self.reason(error))
            }
        case .remove(let path):
            guard fileManager.fileExists(atPath: path) else { return }
            do {
                try fileManager.removeItem(atPath: path)
            } catch {
                throw .fileFailed(path, Self.reason(error))
            }
        case .run(let command, _):
            try run(command)
        case .note:
            return
        }
    }

    /// Writes beside the target and renames over it, so a running binary or a unit being read
    /// never sees half a file.
    private func writeAtomically(_ data: Data, to path: String, permissions: Int) throws(SetupError) {
        let fileManager = FileManager.default
        let folder = (path as NSString).deletingLastPathComponent
        let temporary = (folder as NSString).appendingPathComponent(".\((path as NSString).lastPathComponent).glucobridge-new")
        do {
            try fileManager.createDirectory(atPath: folder, withIntermediateDirectories: true)
            guard fileManager.createFile(atPath: temporary, contents: data) else {
                throw SetupError.fileFailed(path, "cannot create \(temporary): permission denied or read-only file system")
            }
            try fileManager.setAttributes([.posixPermissions: permissions], ofItemAtPath: temporary)
            guard rename(temporary, path) == 0 else {
                let reason = String(cString: strerror(errno))
                try? fileManager.removeItem(atPath: temporary)
                throw SetupError.fileFailed(path, reason)
            }
        } catch let error as SetupError {
            throw error
        } catch {
            throw .fileFailed(path, Self.reason(error))
        }
    }

    private func run(_ command: [String]) throws(SetupError) {
        guard let name = command.first else { return }
        guard let executable = searchPath.map({ "\($0)/\(name)" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw .commandMissing(name)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = Array(command.dropFirst())
        do {
            try process.run()
        } catch {
            throw .commandFailed(command.joined(separator: " "), Self.reason(error))
        }
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw .commandFailed(command.joined(separator: " "), "exit status \(process.terminationStatus)")
        }
    }

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }
}

/// Why an install, uninstall or check could not be done.
package enum SetupError: Error, Equatable, CustomStringConvertible {
    case invalidPrefix(String, String)
    case needsRoot
    case fileFailed(String, String)
    case commandMissing(String)
    case commandFailed(String, String)

    package var description: String {
        switch self {
        case .invalidPrefix(let prefix, let reason): "cannot use the prefix \(prefix): \(reason)"
        case .needsRoot:
            "installing for the system writes to /etc and /usr/local and needs root: run it with sudo, "
                + "or install for yourself with --user"
        case .fileFailed(let path, let reason): "\(path): \(reason)"
        case .commandMissing(let name):
            switch name {
            case "udevadm": "udevadm is not installed (it comes with the udev package)"
            case "systemctl", "systemd-sysusers": "\(name) is not installed (it comes with the systemd package)"
            default: "\(name) is not installed or not in PATH"
            }
        case .commandFailed(let command, let reason): "`\(command)` failed (\(reason))"
        }
    }
}
