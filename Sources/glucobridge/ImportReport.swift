import Foundation
import Importer
import Ingest
import Model
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
        lines.append(Self.clock(outcome.clock, device: "device"))
        lines += outcome.notes.map { "note: \($0)" }
        lines.append("store: \(store.path)")
        return lines.joined(separator: "\n")
    }

    /// `time: host-anchored, device clock 14400 s behind the host's`; for a wall clock, how it was
    /// placed and its error (device − host, at the clock's resolution).
    static func clock(_ clock: ClockReport, device: String) -> String {
        var line = "time: \(clock.method.rawValue)"
        if let wallClock = clock.wallClock {
            line += " wall clock (\(wallClock.rawValue))"
            if let offset = clock.offsetSeconds {
                let error = Int64(-offset.rounded())
                line += error == 0 ? ", clock error 0" : ", clock error \(WallClock.signed(error)) (\(device) − host)"
            }
        } else if let offset = clock.offsetSeconds {
            line += ", \(device) clock \(Int(abs(offset).rounded())) s \(offset >= 0 ? "behind" : "ahead of") the host's"
        }
        return line
    }

    static func utc(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
