import Foundation
import Importer
import Store

#if canImport(Glibc)
    import Glibc
#endif

/// `glucobridge status`: what the daemon is doing (from its state file beside the store) and the
/// last import of every source (from the store's `import_run` table, through the import report's
/// formatter), times in the store's zone.
/// Reads files only; there is no port to ask.
package enum StatusReport {
    package static func text(storePath: String) throws(StoreError) -> String {
        var lines: [String] = []
        let storeExists = FileManager.default.fileExists(atPath: storePath)
        let store = storeExists ? try SharedStore(path: storePath, mode: .existing) : nil
        let zone = store?.timeZone
        lines.append(zone.map { "store: \(storePath) (times in \($0.identifier))" } ?? "store: \(storePath) does not exist yet (nothing imported)")
        lines += daemonLines(DaemonState.read(forStore: storePath), zone: zone)
        guard let store else { return lines.joined(separator: "\n") }

        let runs = try store.latestImportRuns()
        if runs.isEmpty {
            lines.append("last import per source: none yet")
        } else {
            lines.append("last import per source:")
            lines += runs.map { "  " + ImportReport.lastImport($0, zone: store.timeZone) }
        }
        return lines.joined(separator: "\n")
    }

    /// The daemon's lines, times in `zone` (ISO 8601 UTC without one).
    static func daemonLines(_ state: DaemonState?, zone: TimeZone? = nil) -> [String] {
        let timestamp = { (date: Date) in Self.timestamp(date, zone: zone) }
        guard let state else { return ["daemon: has not run with this store"] }
        var lines: [String]
        if state.running && isAlive(state.pid) {
            lines = ["daemon: running, pid \(state.pid), since \(timestamp(state.startedAt)) (status of \(timestamp(state.updatedAt)))"]
        } else if state.running {
            lines = ["daemon: not running: pid \(state.pid) ended without stopping cleanly (last status \(timestamp(state.updatedAt)))"]
        } else {
            lines = ["daemon: stopped \(timestamp(state.updatedAt)) (it ran from \(timestamp(state.startedAt)))"]
        }
        if let spool = state.spool {
            let waiting = SpoolFolder(url: URL(fileURLWithPath: spool)).entries().count
            lines.append("  spool: \(spool): \(state.spoolImported) imported, \(state.spoolFailed) failed since start, \(waiting) waiting")
        }
        lines.append(
            "  usb: \(state.usb)"
                + (state.usbImported + state.usbFailed > 0
                    ? "; \(state.usbImported) imported, \(state.usbFailed) failed since start" : ""))
        lines.append("  bluetooth: \(state.bluetooth)")
        for source in state.polled ?? [] {
            var line = "  \(source.name): \(source.read) read, \(source.failed) failed since start"
            if source.failuresInARow > 0 { line += " (\(source.failuresInARow) in a row, backing off)" }
            if let last = source.lastRead { line += "; last read \(timestamp(last))" }
            if state.running, let next = source.nextAttempt { line += "; next try \(timestamp(next))" }
            lines.append(line)
        }
        if let sync = state.sync { lines += syncLines(sync, running: state.running) }
        if state.running { lines.append("  now: \(state.activity ?? "idle")") }
        if !state.failures.isEmpty {
            lines.append("  recent failures:")
            lines += state.failures.reversed().map { "    \(timestamp($0.time)) \($0.what): \($0.error)" }
        }
        return lines
    }

    static func syncLines(_ sync: SyncStatus, running: Bool) -> [String] {
        var line = "  sync to \(sync.target): "
        if let success = sync.lastSuccess {
            line += "last synced \(timestamp(success)) (\(sync.lastSummary ?? ""))"
        } else {
            line += sync.lastAttempt == nil ? "not tried yet" : "not synced yet"
        }
        var lines = [line]
        if let error = sync.lastError {
            var failure = "    last sync failed"
            if let attempt = sync.lastAttempt { failure += " \(timestamp(attempt))" }
            failure += " (\(sync.failuresInARow) in a row): \(error)"
            if running, let next = sync.nextAttempt { failure += "; next try \(timestamp(next))" }
            lines.append(failure)
        }
        return lines
    }

    static func isAlive(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
    }

    /// `2024-05-01 08:30:15` in `zone`, as every output shows an instant; ISO 8601 UTC without a zone.
    static func timestamp(_ date: Date, zone: TimeZone? = nil) -> String {
        zone.map { LocalTimeText.text(date, zone: $0, seconds: true) } ?? ISO8601DateFormatter().string(from: date)
    }
}
