import Foundation

/// `Task.sleep(for:)` on a dispatch timer of the daemon's own serial queue.
///
/// On Linux, `Task.sleep` hands its timer to libdispatch's global queues, and once a job has run
/// there libdispatch checks its worker threads every second for the rest of the process
/// (`_dispatch_workq_monitor_pools`, swift-corelibs-libdispatch's `src/event/workqueue.c`): one
/// sleep would make an idle daemon wake 60 times a minute. A serial queue's work runs on
/// libdispatch's overcommit threads, which that monitor does not watch; the timer itself waits in
/// the kernel (a timerfd), so a sleep costs one wake-up when it ends.
enum SerialTimer {
    private static let queue = DispatchQueue(label: "glucobridge.timers")

    /// Returns after `duration`, or throws `CancellationError` as soon as the task is cancelled.
    static func sleep(for duration: Duration) async throws {
        let sleep = Sleep()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let wake = DispatchWorkItem { sleep.end(cancelled: false) }
                guard sleep.begin(continuation, wake) else { return }
                queue.asyncAfter(deadline: .now() + interval(duration), execute: wake)
            }
        } onCancel: {
            sleep.end(cancelled: true)
        }
    }

    static func interval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return .nanoseconds(0) }
        guard seconds < Int64(Int.max / 1_000_000_000) - 1 else { return .never }
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }

    /// One sleep: its continuation is resumed once, by the timer or by cancellation, whichever is first.
    private final class Sleep: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<Void, any Error>?
        private var wake: DispatchWorkItem?
        private var cancelled = false

        /// False (and the continuation resumed with `CancellationError`) when the task was cancelled before it began.
        func begin(_ continuation: CheckedContinuation<Void, any Error>, _ wake: DispatchWorkItem) -> Bool {
            lock.lock()
            if cancelled {
                lock.unlock()
                continuation.resume(throwing: CancellationError())
                return false
            }
            self.continuation = continuation
            self.wake = wake
            lock.unlock()
            return true
        }

        func end(cancelled: Bool) {
            lock.lock()
            if cancelled { self.cancelled = true }
            let (continuation, wake) = (self.continuation, self.wake)
            self.continuation = nil
            self.wake = nil
            lock.unlock()
            guard let continuation else { return }
            if cancelled {
                wake?.cancel()
                continuation.resume(throwing: CancellationError())
            } else {
                continuation.resume()
            }
        }
    }
}
