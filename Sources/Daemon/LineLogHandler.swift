import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Log lines for a long-running process: one line per event on stderr, metadata as sorted
/// `key=value` pairs (values with spaces or quotes are quoted), so `journalctl` and `grep` see
/// every event whole.
///
/// Under systemd (`JOURNAL_STREAM` is set) each line starts with the syslog priority (`<6>` for
/// info), which journald turns into the entry's priority, and carries no timestamp of its own
/// (journald adds one). Elsewhere it starts with an ISO 8601 UTC timestamp and the level.
package struct LineLogHandler: LogHandler {
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    package let label: String
    /// Whether lines carry a syslog priority prefix instead of a timestamp.
    package let forJournal: Bool

    package init(label: String, level: Logger.Level, forJournal: Bool) {
        self.label = label
        self.logLevel = level
        self.forJournal = forJournal
    }

    /// Whether this process's stderr goes to the systemd journal.
    package static var stderrIsJournal: Bool {
        ProcessInfo.processInfo.environment["JOURNAL_STREAM"].map { !$0.isEmpty } ?? false
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        let line =
            Self.format(
                level: event.level, label: label, message: event.message.description, metadata: merged,
                timestamp: forJournal ? nil : Date()) + "\n"
        // One write(2) per line: lines from several threads never interleave.
        var bytes = Array(line.utf8)
        if forJournal { bytes = Array("<\(Self.priority(event.level))>".utf8) + bytes }
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
    }

    /// `2026-11-22T10:00:00Z info glucobridge.daemon: spool import stored added=23 file=x.pcap`.
    package static func format(
        level: Logger.Level, label: String, message: String, metadata: Logger.Metadata, timestamp: Date?
    ) -> String {
        var parts: [String] = []
        if let timestamp {
            parts.append(utcTimestamp(timestamp))
            parts.append(level.rawValue)
        }
        parts.append("\(label): \(oneLine(message))")
        for key in metadata.keys.sorted() {
            parts.append("\(key)=\(quoted(oneLine("\(metadata[key]!)")))")
        }
        return parts.joined(separator: " ")
    }

    /// `2026-11-22T10:00:00Z`: ISO 8601 in UTC, whole seconds (as `ISO8601DateFormatter` writes
    /// it), from the C library's calendar: Foundation's formatters load ICU's calendar and zone
    /// data, megabytes a daemon would keep resident for one timestamp a line.
    package static func utcTimestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        guard gmtime_r(&seconds, &fields) != nil else { return "\(date)" }
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = "\(value)"
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(fields.tm_year + 1900, 4))-\(padded(fields.tm_mon + 1, 2))-\(padded(fields.tm_mday, 2))"
            + "T\(padded(fields.tm_hour, 2)):\(padded(fields.tm_min, 2)):\(padded(fields.tm_sec, 2))Z"
    }

    /// syslog priorities, as journald reads them from a `<N>` prefix.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    private static func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " | ")
    }

    private static func quoted(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
