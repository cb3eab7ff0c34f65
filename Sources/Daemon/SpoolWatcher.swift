import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Something in the spool folder may need looking at.
enum SpoolTrigger: Sendable, Equatable {
    /// These files were just completed: renamed into the folder, or closed by the program that wrote them.
    case completed([String])
    /// Look at every file (at start-up, after lost events, when a file was still settling).
    case rescan
    /// The folder itself was removed or renamed.
    case folderGone
}

/// Watches the spool folder with inotify: `IN_MOVED_TO` (a file renamed into it) and
/// `IN_CLOSE_WRITE` (a writer closed a file) say a file is complete, so nothing is polled and a
/// half-written file is never reported. The inotify descriptor is read by a dispatch source
/// (epoll), which wakes only when the kernel has events.
///
/// When inotify cannot be used (no `CONFIG_INOTIFY_USER`, or the per-user limit of instances is
/// reached) the watcher falls back to a rescan every `pollInterval`, and the spool takes only
/// files that have settled.
///
/// Sendable: the mutable state (`delayed`, the poll task, the source) is guarded by `lock`.
final class SpoolWatcher: @unchecked Sendable {
    /// How the folder is watched.
    enum Mode: CustomStringConvertible {
        case inotify
        /// A rescan every `interval`, because inotify failed with `reason`.
        case polling(every: Duration, reason: String)

        var description: String {
            switch self {
            case .inotify: "inotify"
            case .polling(let interval, let reason): "polling every \(interval) (inotify: \(reason))"
            }
        }
    }

    let triggers: AsyncStream<SpoolTrigger>
    private(set) var mode = Mode.inotify

    private let continuation: AsyncStream<SpoolTrigger>.Continuation
    private let lock = NSLock()
    private var source: (any DispatchSourceRead)?
    private var pollTask: Task<Void, Never>?
    private var delayed: Task<Void, Never>?

    init(folder: URL, pollInterval: Duration) {
        (triggers, continuation) = AsyncStream.makeStream(of: SpoolTrigger.self, bufferingPolicy: .unbounded)
        let fd = inotify_init1(Int32(O_NONBLOCK | O_CLOEXEC))
        let events = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)
        if fd >= 0, inotify_add_watch(fd, folder.path, events) >= 0 {
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "glucobridge.spool-watch"))
            source.setEventHandler { [continuation] in
                for trigger in Self.drain(fd) { continuation.yield(trigger) }
            }
            source.setCancelHandler { _ = close(fd) }
            source.resume()
            self.source = source
            mode = .inotify
        } else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { _ = close(fd) }
            mode = .polling(every: pollInterval, reason: reason)
            pollTask = Task { [continuation] in
                while !Task.isCancelled {
                    do {
                        try await SerialTimer.sleep(for: pollInterval)
                    } catch {
                        return
                    }
                    continuation.yield(.rescan)
                }
            }
        }
        continuation.yield(.rescan)
    }

    deinit {
        stop()
    }

    /// Asks for a rescan after `delay`, unless one is already pending.
    func rescan(after delay: Duration) {
        lock.withLock {
            guard delayed == nil else { return }
            delayed = Task { [weak self, continuation] in
                try? await SerialTimer.sleep(for: delay)
                self?.lock.withLock { self?.delayed = nil }
                if !Task.isCancelled { continuation.yield(.rescan) }
            }
        }
    }

    /// Stops watching and finishes `triggers`.
    func stop() {
        let (source, pollTask, delayed) = lock.withLock {
            let taken = (self.source, self.pollTask, self.delayed)
            self.source = nil
            self.pollTask = nil
            self.delayed = nil
            return taken
        }
        source?.cancel()
        pollTask?.cancel()
        delayed?.cancel()
        continuation.finish()
    }

    /// Reads every queued inotify event: `struct inotify_event { int wd; uint32_t mask;
    /// uint32_t cookie; uint32_t len; char name[len]; }`, the name NUL-padded.
    private static func drain(_ fd: Int32) -> [SpoolTrigger] {
        var triggers: [SpoolTrigger] = []
        var completed: [String] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            while offset + 16 <= count {
                let mask = readUInt32(buffer, offset + 4)
                let length = Int(readUInt32(buffer, offset + 12))
                let nameBytes = buffer[(offset + 16)..<min(offset + 16 + length, count)].prefix { $0 != 0 }
                offset += 16 + length
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    triggers.append(.rescan)
                } else if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
                    triggers.append(.folderGone)
                } else if !nameBytes.isEmpty {
                    completed.append(String(decoding: nameBytes, as: UTF8.self))
                }
            }
        }
        if !completed.isEmpty { triggers.insert(.completed(completed), at: 0) }
        return triggers
    }

    /// A field of `struct inotify_event`, in the host's byte order.
    private static func readUInt32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
    }
}
