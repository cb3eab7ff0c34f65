import Foundation
import Synchronization

/// Runs imports one after another on one thread of their own.
///
/// Imports block (libusb transfers, SQLite writes), so they run on a serial dispatch queue rather
/// than on Swift's cooperative threads; awaiting `run` suspends the caller without holding a
/// thread. One queue serves USB arrivals, spool files and (later) Bluetooth sources, so two
/// imports never run at once and never share a transaction.
package final class ImportQueue: Sendable {
    private let queue = DispatchQueue(label: "glucobridge.imports")
    /// Jobs queued or running, and which quiet period is the latest (an older one does nothing).
    private let state = Mutex((queued: 0, quietPeriod: 0))
    private let whenIdle: (after: Duration, body: @Sendable () -> Void)?

    /// - Parameter whenIdle: Runs `body` on the queue's thread once no job has been queued or run
    ///   for `after` (the daemon hands its program's pages back to the kernel then, see
    ///   `ProgramPages`): once after each burst of jobs, and once after `settle()`.
    package init(whenIdle: (after: Duration, body: @Sendable () -> Void)? = nil) {
        self.whenIdle = whenIdle
    }

    /// Runs `body` after every import queued before it has finished.
    package func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        state.withLock { $0.queued += 1 }
        return await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: body())
                let idle = self.state.withLock {
                    $0.queued -= 1
                    return $0.queued == 0
                }
                if idle { self.settle() }
            }
        }
    }

    /// Starts a quiet period: `whenIdle` runs at its end unless a job is queued meanwhile.
    package func settle() {
        guard let whenIdle else { return }
        let period = state.withLock {
            $0.quietPeriod += 1
            return $0.quietPeriod
        }
        let (seconds, attoseconds) = whenIdle.after.components
        let delay = DispatchTimeInterval.nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        queue.asyncAfter(deadline: .now() + delay) {
            let current = self.state.withLock { $0.queued == 0 && $0.quietPeriod == period }
            if current { whenIdle.body() }
        }
    }
}
