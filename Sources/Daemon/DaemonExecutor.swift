import CConcurrencyHooks
import NIOCore
import NIOPosix

/// The event loop the daemon's tasks run on (`glucobridge daemon` installs it before any task starts).
package enum DaemonExecutor {
    package static let loop: any EventLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()

    /// Whether the runtime's global executor hooks send jobs to `loop`: decided once, the first
    /// time it is read.
    package static let isInstalled: Bool = {
        #if compiler(>=6.0) && compiler(<6.4)
            _ = loop
            return glucobridge_install_global_executor(
                { job in DaemonExecutor.run(job) },
                { nanoseconds, job in DaemonExecutor.run(job, after: nanoseconds) }) == 0
        #else
            return false
        #endif
    }()

    /// Whether a task started now runs on `loop`'s thread: asked of a detached task, so that the
    /// answer is where the runtime really put it, not what was installed.
    package static func tasksRunOnTheLoop() async -> Bool {
        guard isInstalled else { return false }
        return await Task.detached { loop.inEventLoop }.value
    }

    /// Runs a job the Swift runtime handed to its global executor.
    static func run(_ job: UnsafeMutableRawPointer?, after nanoseconds: UInt64 = 0) {
        guard let job else { return }
        let unowned = unsafeBitCast(job, to: UnownedJob.self)
        let loop = self.loop
        let executor = loop.executor.asUnownedSerialExecutor()
        if nanoseconds == 0 {
            loop.execute { unowned.runSynchronously(on: executor) }
        } else {
            loop.scheduleTask(in: .nanoseconds(Int64(clamping: nanoseconds))) { unowned.runSynchronously(on: executor) }
        }
    }
}
