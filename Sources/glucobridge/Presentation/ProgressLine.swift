import Foundation
import Model
import Pipeline

#if canImport(Glibc)
    import Glibc
#endif

/// The progress line of a live download on stderr (`reading egv pages: 12 of 107`), rewritten in
/// place. Shown only when stderr is a terminal: a log, a pipe or the journal gets nothing.
final class ProgressLine: @unchecked Sendable {
    private let lock = NSLock()
    private var shown = false

    /// A progress line when stderr is a terminal; nil otherwise.
    static func ifTerminal() -> ProgressLine? {
        isatty(STDERR_FILENO) == 1 ? ProgressLine() : nil
    }

    /// The reporter an import is given: it rewrites this line.
    var reporter: DownloadProgress {
        DownloadProgress { [self] stage, done, total in show(Self.render(stage, done: done, total: total)) }
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

    /// Ends the line, so that the report starts on a fresh one.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
