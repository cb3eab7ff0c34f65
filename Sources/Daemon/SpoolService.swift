import Foundation
import Importer
import Logging
import ServiceLifecycle
import Store

/// Imports every capture file dropped into the spool folder exactly as `glucobridge replay`
/// would (`Importer.run` with the file as its source: a btsnoop file recognised by its magic, any
/// other a USB capture whose driver comes from its descriptors), then moves it to `done/` (with
/// `NAME.report.txt`) or `failed/` (with `NAME.reason.txt`).
///
/// A failure that is the store's and not the file's — the store locked by another program for
/// longer than its busy timeout, read-only, or unopenable — leaves the file where it is and
/// retries after `retryInterval`.
///
/// Each file has `SpoolTiming.importLimit` to be imported in: a replay still running then stops,
/// stores nothing, and the file goes to `failed/` saying so, so one hostile file never holds up
/// the files after it.
///
/// On graceful shutdown the import in progress finishes (a replay reads a file, not a device)
/// and no further file is started.
package final class SpoolService: Service {
    let folder: SpoolFolder
    let importer: Importer
    let queue: ImportQueue
    let state: StateFileWriter
    let logger: Logger
    let timing: SpoolTiming

    package init(folder: SpoolFolder, importer: Importer, queue: ImportQueue, state: StateFileWriter, timing: SpoolTiming, logger: Logger) {
        self.folder = folder
        self.importer = importer
        self.queue = queue
        self.state = state
        self.timing = timing
        self.logger = logger
    }

    package func run() async throws {
        try folder.prepare()
        let watcher = SpoolWatcher(folder: folder.url, pollInterval: timing.pollInterval)
        defer { watcher.stop() }
        logger.info("watching the spool folder", metadata: ["spool": "\(folder.url.path)", "watch": "\(watcher.mode)"])

        for await trigger in watcher.triggers.cancelOnGracefulShutdown() {
            switch trigger {
            case .completed(let names):
                for name in names where folder.isWaiting(name) {
                    if Task.isShuttingDownGracefully { break }
                    await importFile(name, watcher: watcher)
                }
            case .rescan:
                let now = Date()
                var settling = false
                for entry in folder.entries() {
                    if Task.isShuttingDownGracefully { break }
                    if now.timeIntervalSince(entry.modified) >= timing.settleSeconds {
                        await importFile(entry.name, watcher: watcher)
                    } else {
                        settling = true
                    }
                }
                if settling { watcher.rescan(after: timing.settle) }
            case .folderGone:
                throw DaemonError.spoolGone(path: folder.url.path)
            }
        }
    }

    private func importFile(_ name: String, watcher: SpoolWatcher) async {
        let url = folder.url.appendingPathComponent(name)
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        await state.update { $0.activity = "importing spool file \(name)" }
        let importer = self.importer
        let limit = timing.importLimit
        let result = await queue.run { Result { () throws(ImportError) in try Self.replay(url, with: importer, budget: limit) } }
        switch result {
        case .success(let imported):
            let report = "imported \(Self.timestamp(Date())) from \(name) (\(size) bytes)\n" + imported.text
            var metadata = imported.logMetadata
            metadata["file"] = "\(name)"
            do {
                let destination = try folder.markDone(name, report: report)
                metadata["movedTo"] = "\(destination.path)"
                logger.info("spool file imported", metadata: metadata)
            } catch {
                metadata["error"] = "\(error)"
                logger.error("spool file imported but not moved; it will be imported again (adding nothing)", metadata: metadata)
            }
            await state.update {
                $0.spoolImported += 1
                $0.activity = nil
            }
        case .failure(let error) where Self.isStoreUnavailable(error):
            logger.warning(
                "spool file not imported: the store is unavailable; trying again later",
                metadata: [
                    "file": "\(name)", "error": "\(error)", "retryIn": "\(timing.retryInterval)",
                ])
            watcher.rescan(after: timing.retryInterval)
            await state.update {
                $0.recordFailure("spool \(name)", "\(error) (kept in the spool; retried)", at: Date())
                $0.activity = nil
            }
        case .failure(let error):
            let reason = "\(error)\nfile: \(name) (\(size) bytes), failed \(Self.timestamp(Date()))"
            var metadata: Logger.Metadata = ["file": "\(name)", "error": "\(error)"]
            do {
                metadata["movedTo"] = "\(try folder.markFailed(name, reason: reason).path)"
                logger.error("spool file failed", metadata: metadata)
            } catch let moveError {
                metadata["moveError"] = "\(moveError)"
                logger.error("spool file failed and could not be moved to failed/", metadata: metadata)
            }
            await state.update {
                $0.spoolFailed += 1
                $0.recordFailure("spool \(name)", "\(error)", at: Date())
                $0.activity = nil
            }
        }
    }

    /// Replays the capture at `url` within `budget` (Bluetooth when it is a btsnoop file, USB
    /// otherwise): what to log, and the import report (as the command line prints it) for `done/`.
    static func replay(_ url: URL, with importer: Importer, budget: Duration) throws(ImportError) -> ImportReport {
        ImportReport(try importer.run(.capture(url), context: ImportContext(budget: budget)), store: importer.store)
    }

    /// Whether the import failed because of the store (not the file), so it is worth retrying.
    static func isStoreUnavailable(_ error: any Error) -> Bool {
        switch storeFailure(of: error) {
        case .locked, .readOnly, .cannotOpen: return true
        default: return false
        }
    }

    static func timestamp(_ date: Date) -> String {
        LineLogHandler.utcTimestamp(date)
    }
}

/// How patiently the spool waits.
package struct SpoolTiming: Sendable {
    /// A file found by a scan is taken once it has not been modified for this long.
    package var settle: Duration
    /// How long a file waits after the store was unavailable.
    package var retryInterval: Duration
    /// The rescan interval when inotify cannot be used.
    package var pollInterval: Duration
    /// How long one file's import may run before it is abandoned (nothing stored, file to `failed/`).
    package var importLimit: Duration

    package init(
        settle: Duration = .seconds(2), retryInterval: Duration = .seconds(60), pollInterval: Duration = .seconds(5),
        importLimit: Duration = .seconds(600)
    ) {
        self.settle = settle
        self.retryInterval = retryInterval
        self.pollInterval = pollInterval
        self.importLimit = importLimit
    }

    var settleSeconds: TimeInterval {
        let (seconds, attoseconds) = settle.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
