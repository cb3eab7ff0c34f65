import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds the password for a ``SyncTarget`` the way PostgreSQL's own tools do, never from the
/// command line: a password file named by the caller, else `PGPASSWORD`, else the password file
/// (`PGPASSFILE`, default `~/.pgpass`; PostgreSQL documentation, "The Password File").
package struct PasswordLookup: Sendable {
    package var passwordFile: String?
    package var environment: [String: String]
    /// Warnings to show (e.g. a `.pgpass` ignored because others may read it).
    package private(set) var warnings: [String] = []

    package init(passwordFile: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.passwordFile = passwordFile
        self.environment = environment
    }

    /// The password for `target`, or nil when none is given (the server may not ask for one).
    package mutating func password(for target: SyncTarget) throws(SyncError) -> String? {
        if let passwordFile {
            guard let data = FileManager.default.contents(atPath: passwordFile),
                let text = String(data: data, encoding: .utf8)
            else { throw .passwordFile(path: passwordFile, reason: "it does not exist or cannot be read") }
            let password = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
            guard !password.isEmpty else { throw .passwordFile(path: passwordFile, reason: "its first line is empty") }
            return password
        }
        if let password = environment["PGPASSWORD"], !password.isEmpty { return password }
        let home = environment["HOME"] ?? NSHomeDirectory()
        let path = environment["PGPASSFILE"] ?? (home as NSString).appendingPathComponent(".pgpass")
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        // libpq ignores a password file that its group or others may read or write.
        if status.st_mode & 0o077 != 0 {
            warnings.append("the password file \(path) is ignored because others may read it; run chmod 0600 \(path)")
            return nil
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            return nil
        }
        return Self.match(in: text, target: target)
    }

    /// The password of the first line of a `.pgpass` text whose fields
    /// (`hostname:port:database:username:password`, `*` matching anything, `\:` and `\\`
    /// escaped) match `target`.
    static func match(in text: String, target: SyncTarget) -> String? {
        let wanted = [target.host, String(target.port), target.database, target.user]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = split(String(line))
            guard fields.count == 5 else { continue }
            let matches = zip(fields.prefix(4), wanted).allSatisfy { field, value in
                field == "*" || field == value
            }
            if matches { return fields[4] }
        }
        return nil
    }

    /// Splits a `.pgpass` line at unescaped colons, removing the escapes.
    private static func split(_ line: String) -> [String] {
        var fields = [""]
        var escaped = false
        for character in line {
            if escaped {
                fields[fields.count - 1].append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fields.append("")
            } else {
                fields[fields.count - 1].append(character)
            }
        }
        return fields
    }
}
