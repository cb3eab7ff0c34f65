import Foundation
import Model

#if canImport(Glibc)
import Glibc
#endif

/// The progress line of a live download on stderr (`reading egv pages: 12 of 107`), rewritten in
/// place. Shown only when stderr is a terminal: a log, a pipe or the journal gets nothing.
final class ProgressLine: @unchecked Sendable {
    private let lock = NSLock()
    private var shown = false

    /// Installs a progress line as the process's ``DownloadProgress`` sink when stderr is a
    /// terminal; nil (and no sink) otherwise.
    static func installIfTerminal() -> ProgressLine? {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        let line = ProgressLine()
        DownloadProgress.install { stage, done, total in line.show(render(stage, done: done, total: total)) }
        return line
    }

    /// `reading egv pages: 12 of 107` (the total being what the device holds; a re-import stops
    /// at the newest stored record).
    static func render(_ stage: String, done: Int, total: Int?) -> String {
        "reading \(stage): \(done)" + (total.map { " of \($0)" } ?? "")
    }

    private func show(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        shown = true
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
    }

    /// Removes the sink and ends the line, so that the report starts on a fresh one.
    func finish() {
        DownloadProgress.install(nil)
        lock.lock()
        defer { lock.unlock() }
        if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
