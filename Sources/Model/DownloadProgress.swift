import Foundation

/// How far a device download has come, for a progress line. Drivers report through here without
/// it being part of any driver or transport signature; nothing is shown unless a program installs
/// a sink (the command line does, only when stderr is a terminal).
public enum DownloadProgress {
    /// Receives `stage` (`egv pages`), the units read so far and the total when known.
    public typealias Sink = @Sendable (_ stage: String, _ done: Int, _ total: Int?) -> Void

    private static let lock = NSLock()
    nonisolated(unsafe) private static var sink: Sink?

    /// Installs `sink` for the whole process (nil removes it).
    public static func install(_ sink: Sink?) {
        lock.lock()
        defer { lock.unlock() }
        self.sink = sink
    }

    /// Called by drivers as they read: `done` of `total` units of `stage`.
    public static func report(_ stage: String, done: Int, total: Int?) {
        lock.lock()
        let sink = self.sink
        lock.unlock()
        sink?(stage, done, total)
    }
}
