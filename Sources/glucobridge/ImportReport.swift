import Foundation
import Importer
import Store

/// The summary an import prints on stdout.
struct ImportReport {
    var outcome: ImportOutcome
    var store: SharedStore

    var text: String {
        let summary = outcome.summary
        var lines: [String] = []
        if let format = outcome.captureFormat, let mode = outcome.replayMode {
            lines.append("replayed \(outcome.origin ?? "capture") (\(format)) by \(mode)")
        } else {
            lines.append("imported from \(outcome.origin ?? "the device")")
        }
        let model = outcome.source.model.map { " (\($0))" } ?? ""
        lines.append("device: \(outcome.source.family) \(outcome.source.serial)\(model)")
        var counts = "\(summary.recordsRead) records read: \(summary.added) new, \(summary.alreadyStored) already stored"
        if summary.skipped > 0 {
            let named = outcome.events.map { "\($0.name) \($0.count)" }.joined(separator: ", ")
            counts += ", \(summary.skipped) not readings" + (named.isEmpty ? "" : " (\(named))")
        }
        lines.append(counts)
        if let first = summary.firstReading, let last = summary.lastReading {
            lines.append("readings: \(Self.utc(first)) to \(Self.utc(last))")
        }
        if let firstDay = summary.days.first, let lastDay = summary.days.last {
            let span = firstDay == lastDay ? "\(firstDay)" : "\(firstDay) to \(lastDay)"
            lines.append("days: \(span) (\(summary.days.count) day\(summary.days.count == 1 ? "" : "s") in \(store.timeZone.identifier))")
        }
        var clock = "time: \(outcome.clock.method.rawValue)"
        if let offset = outcome.clock.offsetSeconds {
            clock += ", device clock \(Int(abs(offset).rounded())) s \(offset >= 0 ? "behind" : "ahead of") the host's"
        }
        lines.append(clock)
        lines += outcome.notes.map { "note: \($0)" }
        lines.append("store: \(store.path)")
        return lines.joined(separator: "\n")
    }

    static func utc(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
