import Foundation
import Transport

/// Paths tests read from: the repository's `fixtures/` and, when present, the `shared/` folder
/// beside the repository.
public enum Fixtures {
    /// The repository root, found from this source file's location.
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A file under `fixtures/`.
    public static func url(_ relativePath: String) -> URL {
        repositoryRoot.appendingPathComponent("fixtures").appendingPathComponent(relativePath)
    }

    /// A file under `../shared/vectors/`, or nil when the shared folder is absent.
    public static func sharedVector(_ relativePath: String) -> URL? {
        let url = repositoryRoot.deletingLastPathComponent()
            .appendingPathComponent("shared/vectors").appendingPathComponent(relativePath)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// A fresh empty directory for one test's files, inside this test process's folder, which
    /// is removed when the process exits.
    public static func temporaryDirectory() throws -> URL {
        let dir = runFolder.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// `glucobridge-tests-PID` in the system's temporary folder; removed at exit.
    private static let runFolder: URL = {
        atexit { try? FileManager.default.removeItem(atPath: RunFolder.path) }
        return URL(fileURLWithPath: RunFolder.path)
    }()
}

/// The folder `atexit` removes (a C function cannot capture it): the same for the whole process.
private enum RunFolder {
    static let path = FileManager.default.temporaryDirectory.appendingPathComponent("glucobridge-tests-\(getpid())").path
}

/// Bytes from hex text (whitespace between byte pairs allowed); a test fixture that is not hex
/// stops the test run.
public func hexBytes(_ text: String) -> [UInt8] {
    guard let bytes = Hex.decode(Substring(text.filter { !$0.isNewline })) else {
        preconditionFailure("not hex: \(text.prefix(40))")
    }
    return bytes
}

/// An instant from ISO 8601 text such as `2013-09-13T06:59:59Z` or `2013-09-13T06:59:59.125Z`,
/// or from `2013-09-13 04:27:34` read as UTC.
public func utc(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let date = formatter.date(from: text) { return date }
    formatter.formatOptions = [.withInternetDateTime]
    if let date = formatter.date(from: text) { return date }
    let plain = DateFormatter()
    plain.locale = Locale(identifier: "en_US_POSIX")
    plain.timeZone = TimeZone(identifier: "UTC")
    plain.dateFormat = "yyyy-MM-dd HH:mm:ss"
    return plain.date(from: text)!
}
