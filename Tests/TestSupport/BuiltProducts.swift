import Foundation

/// The package's executables, as `swift build` left them beside the test bundle.
public enum BuiltProducts {
    /// The build folder (`.build/<triple>/debug`): the one holding the test bundle (on Linux the
    /// bundle, `…PackageTests.xctest`, is itself the running executable).
    public static var folder: URL {
        let running = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var url = running
        while url.pathComponents.count > 1, !url.lastPathComponent.hasSuffix(".xctest") {
            url.deleteLastPathComponent()
        }
        return url.lastPathComponent.hasSuffix(".xctest") ? url.deletingLastPathComponent() : running.deletingLastPathComponent()
    }

    /// The built executable `name` (e.g. `glucobridge`).
    public static func executable(_ name: String) -> URL {
        folder.appendingPathComponent(name)
    }
}

/// What a finished process left.
public struct ProcessResult {
    public var status: Int32
    public var reason: Process.TerminationReason
    public var stdout: String
    public var stderr: String
}

/// Runs `executable` with `arguments` to completion, its output collected through files (no
/// pipe can fill up). `input`, when given, is all it reads on stdin; without it stdin is the
/// test's own.
public func runProcess(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, input: String? = nil
) throws -> ProcessResult {
    let folder = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let out = folder.appendingPathComponent("stdout")
    let err = folder.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let input {
        let stdin = folder.appendingPathComponent("stdin")
        try Data(input.utf8).write(to: stdin)
        process.standardInput = try FileHandle(forReadingFrom: stdin)
    }
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    try process.run()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus, reason: process.terminationReason,
        stdout: try String(contentsOf: out, encoding: .utf8), stderr: try String(contentsOf: err, encoding: .utf8))
}
