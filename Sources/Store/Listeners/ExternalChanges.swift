import Foundation
import GRDB

/// Makes the store's listeners see commits made by other programs (or other connections) on
/// the file, which GRDB's observation does not notice by itself.
///
/// While at least one listener is registered, a task reads SQLite's `PRAGMA data_version` every
/// `interval` on a connection of its own. The value changes whenever any other connection
/// commits, including this process's own writer; the writer connection's value changes only for
/// commits by *other* connections. So when the first changes, the task reads the second, and
/// when that changed too, it tells this process's observations that the whole database may have
/// changed (`Database.notifyChanges(in:)`, in an empty deferred transaction that takes no lock),
/// and each observation reads its result again. The task sleeps between polls and stops with
/// the last listener.
final class ExternalChanges: @unchecked Sendable {
    private let lock = NSLock()
    private var users = 0
    private var task: Task<Void, Never>?

    private let database: any DatabaseWriter
    private let path: String
    private let busyTimeout: TimeInterval
    let interval: TimeInterval

    init(database: any DatabaseWriter, path: String, busyTimeout: TimeInterval, interval: TimeInterval) {
        self.database = database
        self.path = path
        self.busyTimeout = busyTimeout
        self.interval = interval
    }

    /// Counts a listener in; the first one opens the polling connection and reads its first
    /// `data_version` before returning, so a commit made after this call returns is noticed.
    func retain() throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        if users == 0 {
            var configuration = Configuration()
            configuration.label = "glucobridge.store.data-version"
            configuration.readonly = true
            configuration.busyMode = .timeout(busyTimeout)
            do {
                let reader = try DatabaseQueue(path: path, configuration: configuration)
                let version = try reader.read(Self.dataVersion)
                task = Task.detached { [database, interval] in
                    await Self.poll(reader: reader, version: version, database: database, interval: interval)
                }
            } catch {
                throw StoreError(error, path: path, busyTimeout: busyTimeout)
            }
        }
        users += 1
    }

    /// Counts a listener out; the last one stops the polling.
    func release() {
        lock.lock()
        defer { lock.unlock() }
        users -= 1
        if users == 0 {
            task?.cancel()
            task = nil
        }
    }

    /// Whether the polling task runs (for tests).
    var isPolling: Bool {
        lock.lock()
        defer { lock.unlock() }
        return task != nil
    }

    private static func poll(reader: DatabaseQueue, version: Int, database: any DatabaseWriter, interval: TimeInterval) async {
        var readerVersion = version
        var writerVersion: Int?
        let pause = Duration.milliseconds(Int64((max(interval, 0.001) * 1000).rounded()))
        while true {
            do {
                try await Task.sleep(for: pause)
            } catch {
                return  // cancelled
            }
            do {
                if writerVersion == nil {
                    // The writer's first value: commits between the reader's first value and
                    // this one may be missed by the comparison below, so notify once.
                    writerVersion = try await database.writeWithoutTransaction { db in
                        let version = try dataVersion(db)
                        try notifyChanges(db)
                        return version
                    }
                }
                let now = try await reader.read(dataVersion)
                guard now != readerVersion else { continue }
                let known = writerVersion
                writerVersion = try await database.writeWithoutTransaction { db in
                    let version = try dataVersion(db)
                    if version != known { try notifyChanges(db) }
                    return version
                }
                readerVersion = now
            } catch {
                // A transient failure (e.g. the file busy beyond the timeout): tried again at the
                // next poll, since the versions it compares were left as they were.
                continue
            }
        }
    }

    private static func dataVersion(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0
    }

    /// Makes every observation of the store read its result again.
    private static func notifyChanges(_ db: Database) throws {
        try db.inTransaction(.deferred) {
            try db.notifyChanges(in: .fullDatabase)
            return .commit
        }
    }
}
