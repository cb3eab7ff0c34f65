import Foundation
import Model

/// How far a device download has come, for a progress line. A program that shows progress makes
/// one with a sink and passes it to the import; drivers report through the one they are given.
/// ``silent`` reports nowhere.
public final class DownloadProgress: @unchecked Sendable {
    /// Receives `stage` (`egv pages`), the units read so far and the total when known.
    public typealias Sink = @Sendable (_ stage: String, _ done: Int, _ total: Int?) -> Void

    private let lock = NSLock()
    private let sink: Sink?
    private var expected: [String: Int] = [:]
    private var counted: [String: Int] = [:]

    /// Reports to `sink`; nil reports nowhere.
    public init(_ sink: Sink?) {
        self.sink = sink
    }

    /// A reporter that reports nowhere (a new one each time: it holds no shared state).
    public static var silent: DownloadProgress { DownloadProgress(nil) }

    /// Records the total of `stage` that a device announced before sending its units (a record
    /// count), for the reports of `stage` that do not give one, and restarts the count of
    /// ``advance(_:by:)`` from 0.
    public func expect(_ total: Int, of stage: String) {
        guard sink != nil else { return }
        lock.withLock {
            expected[stage] = total
            counted[stage] = 0
        }
    }

    /// Counts `units` more of `stage` read (since its last ``expect(_:of:)``, if any) and reports
    /// the running count, for drivers that take units one by one as they arrive.
    public func advance(_ stage: String, by units: Int = 1) {
        guard sink != nil else { return }
        let done = lock.withLock {
            let done = counted[stage, default: 0] + units
            counted[stage] = done
            return done
        }
        report(stage, done: done)
    }

    /// Called by drivers as they read: `done` of `total` units of `stage` (by default, the total
    /// announced through ``expect(_:of:)``, if any).
    public func report(_ stage: String, done: Int, total: Int? = nil) {
        guard let sink else { return }
        sink(stage, done, total ?? lock.withLock { expected[stage] })
    }
}
