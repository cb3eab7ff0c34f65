import Foundation
import Logging
import ServiceLifecycle
import Store

/// Sends the store somewhere after it changes (the daemon's `--sync-to`). The daemon knows
/// nothing of where: the command line gives it one of these.
package protocol StoreUploader: Sendable {
    /// Where the store goes, for the status (no password).
    var name: String { get }
    /// Sends what the destination does not hold yet; returns a one-line summary.
    func upload() async throws -> String
}

/// How the daemon's sync is doing, for `glucobridge status`.
package struct SyncStatus: Codable, Sendable, Equatable {
    package var target: String
    package var lastAttempt: Date?
    package var lastSuccess: Date?
    /// What the last sync that worked sent.
    package var lastSummary: String?
    /// Why the last sync failed; nil once one works again.
    package var lastError: String?
    package var failuresInARow = 0
    package var nextAttempt: Date?

    package init(target: String) {
        self.target = target
    }
}

/// Runs the uploader after every change of the store (an import by this daemon or by any other
/// program, or a log entered in the app), at most once per `poll`, and backs off while it fails
/// (the destination unreachable): imports go on locally meanwhile.
final class SyncService: Service {
    let uploader: any StoreUploader
    let store: SharedStore
    let state: StateFileWriter
    let backOff: BackOff
    let poll: Duration
    let logger: Logger

    init(uploader: any StoreUploader, store: SharedStore, state: StateFileWriter, backOff: BackOff, poll: Duration, logger: Logger) {
        self.uploader = uploader
        self.store = store
        self.state = state
        self.backOff = backOff
        self.poll = poll
        self.logger = logger
    }

    func run() async {
        let target = uploader.name
        await state.update { $0.sync = SyncStatus(target: target) }
        var synced: [Int64]?
        var failures = 0
        var retryAt = ContinuousClock.now
        while !Task.isShuttingDownGracefully {
            let mark = try? store.syncWatermark()
            if mark == nil || mark != synced, ContinuousClock.now >= retryAt {
                await state.update { $0.sync?.lastAttempt = Date() }
                do {
                    let summary = try await uploader.upload()
                    synced = mark
                    failures = 0
                    logger.info("store synced", metadata: ["to": "\(target)", "sent": "\(summary)"])
                    await state.update {
                        $0.sync?.lastSuccess = Date()
                        $0.sync?.lastSummary = summary
                        $0.sync?.lastError = nil
                        $0.sync?.failuresInARow = 0
                        $0.sync?.nextAttempt = nil
                    }
                } catch {
                    failures += 1
                    let wait = backOff.delay(afterFailures: failures)
                    retryAt = ContinuousClock.now + wait
                    logger.warning(
                        "sync failed; backing off",
                        metadata: [
                            "to": "\(target)", "error": "\(error)", "failures": "\(failures)", "retryIn": "\(wait)",
                        ])
                    await state.update { [failures] in
                        $0.sync?.lastError = "\(error)"
                        $0.sync?.failuresInARow = failures
                        $0.sync?.nextAttempt = Date().addingTimeInterval(PolledSourceService.seconds(wait))
                    }
                }
            }
            do {
                try await cancelWhenGracefulShutdown { try await SerialTimer.sleep(for: self.poll) }
            } catch {
                return
            }
        }
    }
}
