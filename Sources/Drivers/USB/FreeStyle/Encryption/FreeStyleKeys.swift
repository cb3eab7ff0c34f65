import Foundation

/// The four master keys of the FreeStyle Libre 2 / Libre 3 reader's encrypted USB session.
/// They are not in this repository: they are published in the `freestyle-keys` package (PyPI,
/// 0BSD, `freestyle_keys/libre2.py`), and glucobridge reads them from a key file in its
/// configuration folder or from that package when it is installed.
///
/// The key file holds one `NAME = 0x<32 hex digits>` line per key, with the names the package
/// uses (so its `libre2.py` is itself a valid key file; other lines and `#` comments are
/// ignored):
///
/// ```
/// AUTHORIZATION_ENCRYPTION_KEY = 0x…
/// AUTHORIZATION_MAC_KEY = 0x…
/// SESSION_ENCRYPTION_KEY = 0x…
/// SESSION_MAC_KEY = 0x…
/// ```
public struct FreeStyleKeys: Sendable, Equatable {
    package var authorizationEncryption: SpeckKey
    package var authorizationMAC: SpeckKey
    package var sessionEncryption: SpeckKey
    public var sessionMAC: SpeckKey
    /// Where they were read from (a file path, or the Python package).
    package var origin: String

    public init(authorizationEncryption: SpeckKey, authorizationMAC: SpeckKey, sessionEncryption: SpeckKey, sessionMAC: SpeckKey, origin: String) {
        self.authorizationEncryption = authorizationEncryption
        self.authorizationMAC = authorizationMAC
        self.sessionEncryption = sessionEncryption
        self.sessionMAC = sessionMAC
        self.origin = origin
    }

    package static let names = ["AUTHORIZATION_ENCRYPTION_KEY", "AUTHORIZATION_MAC_KEY", "SESSION_ENCRYPTION_KEY", "SESSION_MAC_KEY"]
    /// The key file's name in the configuration folder.
    package static let fileName = "freestyle-libre2.keys"
    /// What every message about missing keys says.
    package static let howToGet = """
        the FreeStyle Libre 2 / Libre 3 keys are published in the freestyle-keys package (PyPI, 0BSD): \
        `pip install freestyle-keys`, or copy its freestyle_keys/libre2.py to ~/.config/glucobridge/\(fileName) \
        (/etc/glucobridge/\(fileName) for the system-wide import); see docs/devices.md, "FreeStyle Libre 2 and Libre 3"
        """

    /// Reads a key file's text; `origin` names it in errors.
    package static func parse(_ text: String, origin: String) throws(FreeStyleError) -> FreeStyleKeys {
        var found: [String: SpeckKey] = [:]
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            guard names.contains(name) else { continue }
            guard let key = SpeckKey(hex: parts[1]) else {
                throw .keys(reason: "\(origin) line \(number + 1): \(name) is not a 128-bit hex number (0x and up to 32 hex digits)")
            }
            guard found[name] == nil else { throw .keys(reason: "\(origin) line \(number + 1): \(name) is given twice") }
            found[name] = key
        }
        let missing = names.filter { found[$0] == nil }
        guard missing.isEmpty else {
            throw .keys(reason: "\(origin) lacks \(missing.joined(separator: ", ")); \(howToGet)")
        }
        return FreeStyleKeys(
            authorizationEncryption: found[names[0]]!, authorizationMAC: found[names[1]]!, sessionEncryption: found[names[2]]!,
            sessionMAC: found[names[3]]!, origin: origin)
    }

    /// The key files looked for, in order: `GLUCOBRIDGE_FREESTYLE_KEYS` when set (and then only
    /// it), else `$XDG_CONFIG_HOME/glucobridge/…` (`~/.config/glucobridge/…`), then
    /// `/etc/glucobridge/…`.
    package static func keyFiles(environment: [String: String]) -> [String] {
        KeyFileLocations.paths(fileName: fileName, environmentVariable: "GLUCOBRIDGE_FREESTYLE_KEYS", environment: environment)
    }

    /// The keys from the first key file that exists, else from the `freestyle-keys` package of
    /// the `python3` on `PATH` (unless `GLUCOBRIDGE_FREESTYLE_KEYS` names a file). Throws
    /// `.keysMissing` saying where they were looked for and how to get them; a key file that
    /// exists but is not valid is an error too (it is never skipped for the next place).
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) throws(FreeStyleError) -> FreeStyleKeys {
        let files = keyFiles(environment: environment)
        for file in files where FileManager.default.fileExists(atPath: file) {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw .keys(reason: "\(file) cannot be read (check its permissions)")
            }
            return try parse(String(decoding: data, as: UTF8.self), origin: file)
        }
        var searched = files
        if environment["GLUCOBRIDGE_FREESTYLE_KEYS"].map(\.isEmpty) ?? true {
            if let text = pythonPackageKeys(environment: environment) {
                return try parse(text, origin: "the freestyle-keys Python package")
            }
            searched.append("the freestyle-keys package of python3")
        }
        throw .keysMissing(searched: searched)
    }

    /// The package's four constants, printed by `python3` as key file lines; nil when there is
    /// no `python3` or no package.
    static func pythonPackageKeys(environment: [String: String]) -> String? {
        let paths = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        guard let python = paths.map({ "\($0)/python3" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        let script = "from freestyle_keys import libre2 as k\n" + names.map { "print('\($0) = 0x%032x' % k.\($0))" }.joined(separator: "\n")
        process.arguments = ["-c", script]
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return nil
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
