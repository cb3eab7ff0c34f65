import Foundation

/// How far a device download has come, for a progress line. Drivers report through here without
/// it being part of any driver or transport signature; nothing is shown unless a program installs
/// a sink (the command line does, only when stderr is a terminal).
public enum DownloadProgress {
    /// Receives `stage` (`egv pages`), the units read so far and the total when known.
    public typealias Sink = @Sendable (_ stage: String, _ done: Int, _ total: Int?) -> Void

    private static let lock = NSLock()
    nonisolated(unsafe) private static var sink: Sink?
    nonisolated(unsafe) private static var expected: [String: Int] = [:]
    nonisolated(unsafe) private static var counted: [String: Int] = [:]

    /// Installs `sink` for the whole process (nil removes it), forgetting totals and counts.
    public static func install(_ sink: Sink?) {
        lock.lock()
        defer { lock.unlock() }
        self.sink = sink
        expected = [:]
        counted = [:]
    }

    /// Records the total of `stage` that a device announced before sending its units (a record
    /// count), for the reports of `stage` that do not give one, and restarts the count of
    /// ``advance(_:by:)`` from 0. Kept only while a sink is installed.
    public static func expect(_ total: Int, of stage: String) {
        lock.lock()
        defer { lock.unlock() }
        guard sink != nil else { return }
        expected[stage] = total
        counted[stage] = 0
    }

    /// Counts `units` more of `stage` read (since its last ``expect(_:of:)``, if any) and reports
    /// the running count, for drivers that take units one by one as they arrive.
    public static func advance(_ stage: String, by units: Int = 1) {
        lock.lock()
        guard sink != nil else { return lock.unlock() }
        let done = counted[stage, default: 0] + units
        counted[stage] = done
        lock.unlock()
        report(stage, done: done)
    }

    /// Called by drivers as they read: `done` of `total` units of `stage` (by default, the total
    /// announced through ``expect(_:of:)``, if any).
    public static func report(_ stage: String, done: Int, total: Int? = nil) {
        lock.lock()
        let sink = self.sink
        let total = total ?? expected[stage]
        lock.unlock()
        sink?(stage, done, total)
    }
}
