import Foundation
import Logging

/// What the daemon is doing, kept in a small JSON file beside the store so that
/// `glucobridge status` can tell without a network port. Import results themselves are in the
/// store's `import_run` table; this file adds what the store cannot hold: whether the daemon
/// runs, what it watches, and the imports that failed (they write nothing to the store).
package struct DaemonState: Codable, Sendable, Equatable {
    package struct Failure: Codable, Sendable, Equatable {
        package var time: Date
        /// `spool corrupt.pcap`, `usb 22a3:0047 on bus 1 address 5`.
        package var what: String
        package var error: String
    }

    package var pid: Int32
    package var startedAt: Date
    package var updatedAt: Date
    /// False once the daemon has stopped cleanly.
    package var running: Bool
    package var spool: String?
    /// How USB readers are noticed: `hotplug`, or why not.
    package var usb: String
    package var bluetooth: String
    /// The import in progress, if any.
    package var activity: String?
    package var spoolImported = 0
    package var spoolFailed = 0
    package var usbImported = 0
    package var usbFailed = 0
    /// The sources read on a schedule (`--ble`), in the order they started; nil in a file written
    /// by a daemon that had none.
    package var polled: [PolledSourceStatus]?
    /// The sync after every change (`--sync-to`); nil when the daemon does not sync.
    package var sync: SyncStatus?
    /// The most recent failures, newest last, at most `failureLimit`.
    package var failures: [Failure] = []

    package static let failureLimit = 10

    package init(pid: Int32, startedAt: Date, spool: String?, usb: String, bluetooth: String) {
        self.pid = pid
        self.startedAt = startedAt
        self.updatedAt = startedAt
        self.running = true
        self.spool = spool
        self.usb = usb
        self.bluetooth = bluetooth
    }

    /// The state file of the store at `storePath`: `store.sqlite.daemon.json` beside it.
    package static func fileURL(forStore storePath: String) -> URL {
        URL(fileURLWithPath: storePath + ".daemon.json")
    }

    /// The state a daemon last wrote for this store, or nil when none ever ran (or the file is unreadable).
    package static func read(forStore storePath: String) -> DaemonState? {
        guard let data = FileManager.default.contents(atPath: fileURL(forStore: storePath).path) else { return nil }
        return try? decoder.decode(DaemonState.self, from: data)
    }

    mutating func updatePolled(_ name: String, _ change: (inout PolledSourceStatus) -> Void) {
        var all = polled ?? []
        let index =
            all.firstIndex { $0.name == name }
            ?? {
                all.append(PolledSourceStatus(name: name))
                return all.count - 1
            }()
        change(&all[index])
        polled = all
    }

    mutating func recordFailure(_ what: String, _ error: String, at time: Date) {
        failures.append(Failure(time: time, what: what, error: error))
        if failures.count > Self.failureLimit { failures.removeFirst(failures.count - Self.failureLimit) }
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// How one source read on a schedule is doing.
package struct PolledSourceStatus: Codable, Sendable, Equatable {
    /// `bluetooth C0:FF:EE:00:00:01`.
    package var name: String
    /// Reads that succeeded and failed since the daemon started.
    package var read = 0
    package var failed = 0
    /// Failures since the last read that succeeded; the back-off grows with them.
    package var failuresInARow = 0
    package var lastRead: Date?
    /// When the daemon will read the source next.
    package var nextAttempt: Date?

    package init(name: String) {
        self.name = name
    }
}

/// Keeps the state file up to date: every change is written at once, atomically (a reader
/// never sees half a file).
package actor StateFileWriter {
    package private(set) var state: DaemonState
    private let url: URL
    private let logger: Logger
    private var lastSaveFailed = false

    package init(storePath: String, initial: DaemonState, logger: Logger) {
        url = DaemonState.fileURL(forStore: storePath)
        state = initial
        self.logger = logger
    }

    package func update(_ change: @Sendable (inout DaemonState) -> Void) {
        change(&state)
        state.updatedAt = Date()
        save()
    }

    /// Writes the state file. A failure is logged (once until a write succeeds again) and does
    /// not stop imports; `status` then shows the last state written.
    package func save() {
        do {
            try DaemonState.encoder.encode(state).write(to: url, options: .atomic)
            lastSaveFailed = false
        } catch {
            if !lastSaveFailed {
                logger.warning("cannot write the status file", metadata: ["file": "\(url.path)", "error": "\(error.localizedDescription)"])
            }
            lastSaveFailed = true
        }
    }
}
