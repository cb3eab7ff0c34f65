import Foundation

/// Runs SQL on the store at `path` through the `sqlite3` command-line program, as another app
/// would, waiting up to `timeoutMilliseconds` for a lock; returns its output, trimmed.
@discardableResult
public func sqlite3(_ path: String, _ sql: String, timeoutMilliseconds: Int = 5000) throws -> String {
    let result = try runProcess(
        URL(fileURLWithPath: "/usr/bin/sqlite3"), ["-batch", "-cmd", ".timeout \(timeoutMilliseconds)", path], input: sql)
    guard result.status == 0, result.stderr.isEmpty else { throw SQLite3Failure(status: result.status, message: result.stderr) }
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// `sqlite3` exited with an error or wrote to stderr.
public struct SQLite3Failure: Error {
    public var status: Int32
    /// What it wrote on stderr.
    public var message: String
}
