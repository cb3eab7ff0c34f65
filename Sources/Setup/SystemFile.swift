import Foundation

/// The files glucobridge installs outside its binary: udev rules, systemd units and the service
/// account. Their text lives in `udev/` and `systemd/` and nowhere else; SwiftPM embeds those
/// bytes into the binary at build time (`.embedInCode` through the symlinks in
/// `Sources/Setup/Files`), so an installed binary can install them without the source tree and
/// without a resource bundle beside it.
package enum SystemFile: String, CaseIterable, Sendable {
    case udevRules
    case importUnit
    case daemonUnit
    case userDaemonUnit
    case sysusers

    /// Where the file lives in the repository.
    package var repositoryPath: String {
        switch self {
        case .udevRules: "udev/60-glucobridge.rules"
        case .importUnit: "systemd/glucobridge-import@.service"
        case .daemonUnit: "systemd/glucobridge.service"
        case .userDaemonUnit: "systemd/user/glucobridge.service"
        case .sysusers: "systemd/glucobridge.sysusers"
        }
    }

    /// The file's name once installed.
    package var installedName: String {
        switch self {
        case .udevRules: "60-glucobridge.rules"
        case .importUnit: "glucobridge-import@.service"
        case .daemonUnit, .userDaemonUnit: "glucobridge.service"
        case .sysusers: "glucobridge.conf"
        }
    }

    /// The file's text, exactly as in the repository when this binary was built.
    package var contents: String {
        let bytes: [UInt8] =
            switch self {
            case .udevRules: PackageResources._0_glucobridge_rules
            case .importUnit: PackageResources.glucobridge_import__service
            case .daemonUnit: PackageResources.glucobridge_service
            case .userDaemonUnit: PackageResources.glucobridge_user_service
            case .sysusers: PackageResources.glucobridge_sysusers
            }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The binary path the repository's unit file names in `ExecStart=` (nil for files that name
    /// none). `install --prefix` puts its own path in its place.
    package var defaultBinaryPath: String? {
        switch self {
        case .importUnit, .daemonUnit: "/usr/local/bin/glucobridge"
        case .userDaemonUnit: "%h/.local/bin/glucobridge"
        case .udevRules, .sysusers: nil
        }
    }

    /// The text to install when the binary lives at `binaryPath`.
    package func rendered(binaryPath: String?) -> String {
        guard let binaryPath, let defaultPath = defaultBinaryPath, binaryPath != defaultPath else { return contents }
        return contents.replacingOccurrences(of: "ExecStart=\(defaultPath) ", with: "ExecStart=\(binaryPath) ")
    }

    /// The release named in a file's header line (`# glucobridge 0.1.0 …`), or nil when there is none.
    package static func headerVersion(of text: String) -> String? {
        guard let first = text.split(separator: "\n", maxSplits: 1).first, first.hasPrefix("# glucobridge ") else { return nil }
        return first.dropFirst("# glucobridge ".count).split(separator: " ").first.map(String.init)
    }

    /// The binary an installed unit starts: the first word after `ExecStart=`.
    package static func execBinary(of text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix("ExecStart=") {
            return line.dropFirst("ExecStart=".count).split(separator: " ").first.map(String.init)
        }
        return nil
    }

    /// How an installed copy compares with what this binary would install.
    package func compare(installed text: String) -> Comparison {
        if text == rendered(binaryPath: Self.execBinary(of: text)) { return .same }
        let version = Self.headerVersion(of: text)
        if version != GlucoBridgeVersion.current { return .otherRelease(version) }
        return .modified
    }

    package enum Comparison: Equatable, Sendable {
        /// Identical but for the binary path in `ExecStart=`.
        case same
        /// Installed by another release (nil: the file names none).
        case otherRelease(String?)
        /// Same release, different text: edited by hand or damaged.
        case modified
    }
}
