import Foundation
import Model

/// Installs itself as the process's ``DownloadProgress`` sink and keeps every report, in order.
/// Call ``stop()`` (in a `defer`) to remove it.
public final class ProgressRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [(stage: String, done: Int, total: Int?)] = []

    public init() {
        DownloadProgress.install { [self] stage, done, total in
            lock.lock()
            reports.append((stage, done, total))
            lock.unlock()
        }
    }

    /// The reports so far: stage, units done, total when known.
    public var items: [(String, Int, Int?)] {
        lock.lock()
        defer { lock.unlock() }
        return reports.map { ($0.stage, $0.done, $0.total) }
    }

    /// Removes the sink.
    public func stop() { DownloadProgress.install(nil) }
}
