import Foundation
import Model
import Pipeline

/// Keeps every report of its ``reporter``, in order: give the reporter to an import or a driver,
/// then read ``items``.
public final class ProgressRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [(stage: String, done: Int, total: Int?)] = []

    public init() {}

    /// The reporter to pass in.
    public var reporter: DownloadProgress {
        DownloadProgress { [self] stage, done, total in
            lock.withLock { reports.append((stage, done, total)) }
        }
    }

    /// The reports so far: stage, units done, total when known.
    public var items: [(String, Int, Int?)] {
        lock.withLock { reports.map { ($0.stage, $0.done, $0.total) } }
    }
}
