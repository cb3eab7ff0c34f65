import Drivers
import Foundation
import Importer
import Logging
import ServiceLifecycle

/// A source read on a schedule rather than when it appears: a Bluetooth band or sensor
/// (`BluetoothSource`, what `glucobridge daemon --ble` adds). A source is handed to
/// `DaemonConfiguration.polledSources`; the daemon reads it every `interval` through the shared
/// `ImportQueue` (never at the same time as another import), backs off after failures, and logs
/// and records each result like any other import.
package protocol PolledSource: Sendable {
    /// How the source is named in logs and status, e.g. `bluetooth AA:BB:CC:DD:EE:FF`.
    var name: String { get }
    /// The time between two reads that succeeded.
    var interval: Duration { get }
    /// Where to read from now; called on the import queue's thread, for each read.
    func importSource() -> ImportSource
    /// How long a read may listen to the source.
    var limits: BLESessionLimits { get }
}

/// Exponential back-off after failures: `base`, 2×, 4×, … up to `limit`.
package struct BackOff: Sendable, Equatable {
    package var base: Duration
    package var limit: Duration

    package init(base: Duration = .seconds(30), limit: Duration = .seconds(30 * 60)) {
        self.base = base
        self.limit = limit
    }

    /// The wait after `failures` consecutive failures (1 or more).
    package func delay(afterFailures failures: Int) -> Duration {
        var delay = base
        for _ in 1..<max(failures, 1) {
            if delay >= limit { break }
            delay *= 2
        }
        return min(delay, limit)
    }
}

/// Reads one `PolledSource` on its schedule until the daemon stops.
final class PolledSourceService: Service {
    let source: any PolledSource
    let importer: Importer
    let queue: ImportQueue
    let state: StateFileWriter
    let backOff: BackOff
    let logger: Logger

    init(source: any PolledSource, importer: Importer, queue: ImportQueue, state: StateFileWriter, backOff: BackOff, logger: Logger) {
        self.source = source
        self.importer = importer
        self.queue = queue
        self.state = state
        self.backOff = backOff
        self.logger = logger
    }

    func run() async {
        var failures = 0
        let name = source.name
        await state.update { $0.polled = ($0.polled ?? []).filter { $0.name != name } + [PolledSourceStatus(name: name)] }
        while !Task.isShuttingDownGracefully {
            let (source, importer, store) = (self.source, self.importer, self.importer.store)
            await state.update { $0.activity = "reading \(name)" }
            let cancellation = ImportCancellation()
            let result = await withGracefulShutdownHandler {
                await queue.run { () -> Result<ImportReport, ImportError> in
                    Result { () throws(ImportError) -> ImportReport in
                        let context = ImportContext(limits: source.limits, cancellation: cancellation)
                        return ImportReport(try importer.run(source.importSource(), context: context), store: store)
                    }
                }
            } onGracefulShutdown: {
                cancellation.cancel(.cancelled(.stopping(abandoned: "the read of \(name)")))
            }
            let wait: Duration
            switch result {
            case .success(let report):
                failures = 0
                wait = source.interval
                logger.info("source read", metadata: report.logMetadata.merging(["polled": "\(name)", "nextIn": "\(wait)"]) { _, new in new })
                await state.update {
                    $0.updatePolled(name) { status in
                        status.read += 1
                        status.failuresInARow = 0
                        status.lastRead = Date()
                        status.nextAttempt = Date().addingTimeInterval(Self.seconds(wait))
                    }
                    $0.activity = nil
                }
            case .failure(.cancelled(let why)):
                logger.info("source read abandoned", metadata: ["polled": "\(name)", "why": "\(why)"])
                await state.update { $0.activity = nil }
                return
            case .failure(let error):
                failures += 1
                wait = backOff.delay(afterFailures: failures)
                logger.warning(
                    "source not read; backing off",
                    metadata: [
                        "polled": "\(name)", "error": "\(error)", "failures": "\(failures)", "retryIn": "\(wait)",
                    ])
                await state.update { [failures] in
                    $0.recordFailure(name, "\(error)", at: Date())
                    $0.updatePolled(name) { status in
                        status.failed += 1
                        status.failuresInARow = failures
                        status.nextAttempt = Date().addingTimeInterval(Self.seconds(wait))
                    }
                    $0.activity = nil
                }
            }
            do {
                try await cancelWhenGracefulShutdown { try await SerialTimer.sleep(for: wait) }
            } catch {
                return
            }
        }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
