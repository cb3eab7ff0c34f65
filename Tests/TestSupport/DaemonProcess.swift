import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The built `glucobridge daemon`, started with `arguments`; its standard error goes to `log`
/// (made empty first), its standard output nowhere.
public func launchDaemon(_ arguments: [String], loggingTo log: URL) throws -> Process {
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let daemon = Process()
    daemon.executableURL = BuiltProducts.executable("glucobridge")
    daemon.arguments = ["daemon"] + arguments
    daemon.standardOutput = FileHandle.nullDevice
    daemon.standardError = try FileHandle(forWritingTo: log)
    try daemon.run()
    return daemon
}

/// Sends `signal` to `process` and waits up to `patience` seconds for it to exit: whether it did.
public func signalAndWait(_ process: Process, _ signal: Int32, patience: TimeInterval) -> Bool {
    kill(process.processIdentifier, signal)
    let deadline = Date().addingTimeInterval(patience)
    while process.isRunning, Date() < deadline { usleep(50_000) }
    return !process.isRunning
}
