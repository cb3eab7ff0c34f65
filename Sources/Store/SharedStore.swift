import Foundation
import GRDB
import Model

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The SQLite store glucobridge shares with the self-care app.
///
/// The file is in WAL mode, opened with foreign keys on and a busy timeout, so that other
/// programs can read while glucobridge writes, and both can write in turn. Within this process
/// the store is a GRDB `DatabasePool` (reads beside the write) or, for a short command, one
/// connection (see ``Access``).
/// Every method is synchronous, may be called from any thread, and throws a ``StoreError``.
///
/// ```swift
/// let store = try SharedStore(path: "/var/lib/glucobridge/store.sqlite")
/// let meal = try store.add(MealLog(time: Date(), name: "Porridge", carbs: 45))
/// print(meal.day, try store.logs(MealLog.self, of: meal.day).count)
/// ```
public final class SharedStore: Sendable {
    /// The path of the database file.
    public let path: String
    /// The zone whose calendar dates are the store's Days. Kept in the store.
    public let timeZone: TimeZone
    /// How long a write waits for another program's write lock before failing with
    /// ``StoreError/locked(path:waitedSeconds:)``.
    public let busyTimeout: TimeInterval
    /// The store's connections (a `DatabasePool`, or a `DatabaseQueue` under ``Access/serial``).
    /// Inside the package only: the store's own modules (importer, sync, daemon, tools, tests)
    /// use it where they need a write or a read the API does not offer.
    package let database: any DatabaseWriter
    /// Reads the store directly, for queries this type does not offer and for GRDB's
    /// `ValueObservation`. Writes go through the store's methods, which keep its rules (Day
    /// linking, tagging, read-only imported rows); casting the reader back to a writer steps
    /// outside them.
    public var reader: any DatabaseReader { database }
    /// How often, in seconds, listeners look for commits by other programs (see
    /// ``listen(to:onError:onEvent:)``).
    public var changePollInterval: TimeInterval { externalChanges.interval }
    /// Notices other programs' commits for the listeners.
    let externalChanges: ExternalChanges

    /// glucobridge's SQLite `application_id` (`PRAGMA application_id`), the ASCII of "GlBr": it
    /// tells a glucobridge store from any other SQLite file (see docs/store-schema.md).
    public static let applicationID: UInt32 = 0x476C_4272

    /// How a store is opened.
    public enum OpenMode: Sendable {
        /// Create the store when nothing is at the path, migrate it when it is older (for
        /// commands that write: imports, logs).
        case createOrUpdate
        /// Use only a store that is there and up to date; create and change nothing (for
        /// commands that only read: views and exports).
        case existing
    }

    /// How this process's connections to the store share it.
    public enum Access: Sendable {
        /// A GRDB `DatabasePool`: each read runs on a connection of its own beside the writer,
        /// so reads never wait for this process's write (for apps and services).
        case concurrent
        /// One connection (a GRDB `DatabaseQueue`) for this process's reads and writes in turn:
        /// for a command that opens the store, does one job and exits, so it opens one
        /// connection instead of two and writes nothing on opening. Other programs still read
        /// and write beside it, as WAL mode allows.
        case serial
    }

    /// Opens (creating and migrating when needed) the store at `path`.
    ///
    /// Before anything is written, the file is checked: a non-empty file that is not a glucobridge
    /// store (another program's database) is refused with ``StoreError/notAStore(path:holds:)``
    /// and left byte for byte as it was. A store made before glucobridge set its
    /// ``applicationID`` is recognised by its migrations and stamped.
    ///
    /// - Parameters:
    ///   - path: The database file; its folder must exist and, to create or update the store, be
    ///     writable (SQLite keeps `-wal` and `-shm` files beside it).
    ///   - timeZone: Used only when the store is created, and then kept in the store (default: the
    ///     system zone) so that every writer agrees on Days. Opening an existing store with a
    ///     different explicit zone throws ``StoreError/timeZoneMismatch(stored:requested:)``.
    ///   - busyTimeout: How long a write waits for another program's write lock, in seconds.
    ///   - changePollInterval: How often, in seconds, listeners look for commits by other
    ///     programs; they see such a commit within about this time.
    ///   - mode: `.existing` for commands that only read: then nothing is created or migrated,
    ///     and a missing store is ``StoreError/noStore(path:)``.
    ///   - access: `.concurrent` (a pool, the default) or `.serial` (one connection).
    /// - Throws: ``StoreError``: `.cannotOpen`, `.readOnly`, `.locked`, `.corrupt`,
    ///   `.newerSchema`, `.timeZoneMismatch`, `.invalidTimeZone`, `.notAStore`, `.noStore`,
    ///   `.outOfDate`, `.migrationsDamaged`, `.migrationFailed`.
    public init(
        path: String, timeZone: TimeZone? = nil, busyTimeout: TimeInterval = 5, changePollInterval: TimeInterval = 0.25,
        mode: OpenMode = .createOrUpdate, access: Access = .concurrent
    ) throws(StoreError) {
        self.path = path
        self.busyTimeout = busyTimeout
        let found = try StoreFile.inspect(path, busyTimeout: busyTimeout, knownMigrations: Migrations.migrator.migrations)
        if mode == .existing, found == .absent || found == .empty { throw .noStore(path: path) }
        if mode == .createOrUpdate { try Self.checkAccess(path) }
        // A new store from its image; when that cannot be written (or another program made a
        // file there meanwhile), as before: the schema by its SQL, or the file that is there.
        if mode == .createOrUpdate, found == .absent { _ = NewStoreImage.create(at: path) }

        var configuration = Configuration()
        configuration.label = "glucobridge.store"
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(busyTimeout)
        configuration.prepareDatabase { db in
            db.add(function: DaySummaryQuery.dayStartFunction())
            // SQLite keeps a statement journal for each INSERT of several rows, so that a failing
            // row undoes the statement's earlier rows; past 64 KiB it goes to a temporary file,
            // which an import's INSERTs (one per Day of readings) then write page by page. In memory, those
            // writes are copies (https://sqlite.org/tempfiles.html#statement_journals).
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // The rows an import stores, read by SQLite (see `ImportRowTable`).
            guard let connection = db.sqliteConnection, ImportRowTable.register(connection) else {
                throw StoreError.database("SQLite did not register the table function \(ImportRowTable.name)")
            }
        }
        let database: any DatabaseWriter
        do {
            switch access {
            case .concurrent:
                database = try DatabasePool(path: path, configuration: configuration)
            case .serial:
                // A pool turns WAL mode on itself (and writes a table and drops it so that the
                // WAL file exists for its read-only readers); one connection that writes needs
                // only the mode, which a new file gets here and an existing store keeps.
                let queue = try DatabaseQueue(path: path, configuration: configuration)
                try queue.writeWithoutTransaction { db in
                    guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
                        throw StoreError.cannotOpen(path: path, reason: "SQLite could not put it in WAL mode")
                    }
                    try db.execute(sql: "PRAGMA synchronous = NORMAL")
                }
                database = queue
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(error, path: path, busyTimeout: busyTimeout)
        }
        self.database = database
        externalChanges = ExternalChanges(database: database, path: path, busyTimeout: busyTimeout, interval: changePollInterval)

        let opened = try Self.prepare(
            database, path: path, busyTimeout: busyTimeout, newZone: timeZone ?? .current, mayWrite: mode == .createOrUpdate)
        if let timeZone, timeZone.identifier != opened {
            throw .timeZoneMismatch(stored: opened, requested: timeZone.identifier)
        }
        guard let zone = TimeZone(identifier: opened) else { throw .invalidTimeZone(opened) }
        self.timeZone = zone
    }

    /// The thresholds glucose tags are computed from (default: `GlucoseThresholds.consensus`).
    public func thresholds() throws(StoreError) -> GlucoseThresholds {
        try read { db in try Self.thresholds(db) }
    }

    /// Keeps `thresholds` in the store and re-tags every glucose row with them, in one transaction.
    public func setThresholds(_ thresholds: GlucoseThresholds) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: """
                    UPDATE store_config
                    SET very_low_mgdl = ?, low_mgdl = ?, high_mgdl = ?, very_high_mgdl = ?
                    WHERE id = 1
                    """,
                arguments: [thresholds.veryLow, thresholds.low, thresholds.high, thresholds.veryHigh])
            try Self.retag(db, with: thresholds)
        }
    }

    /// Re-tags every glucose row whose tag differs from the one `thresholds` give its value;
    /// returns how many changed. The sync change log does not count a new tag as an edit.
    @discardableResult
    static func retag(_ db: Database, with thresholds: GlucoseThresholds) throws -> Int {
        let tag = DatabaseFunction("glucobridge_tag", argumentCount: 2, pure: true) { values in
            guard let mgdl = Double.fromDatabaseValue(values[0]),
                let unit = String.fromDatabaseValue(values[1]).flatMap(GlucoseUnit.init(rawValue:))
            else { return nil }
            return thresholds.storeTag(mgdl: mgdl, unit: unit).rawValue
        }
        db.add(function: tag)
        defer { db.remove(function: tag) }
        try db.execute(
            sql: """
                UPDATE glucose SET tag = glucobridge_tag(mgdl, unit)
                WHERE tag IS NOT glucobridge_tag(mgdl, unit)
                """)
        return db.changesCount
    }

    /// Runs SQLite's full `PRAGMA integrity_check`; throws ``StoreError/corrupt(path:reason:)``
    /// with SQLite's first findings when the file is damaged.
    public func checkIntegrity() throws(StoreError) {
        let findings = try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check(10)") }
        guard findings == ["ok"] else {
            throw .corrupt(path: path, reason: findings.joined(separator: "; "))
        }
    }

    // MARK: - Running database work

    /// Runs `body` in a read transaction, mapping every error to a ``StoreError``.
    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try database.read(body)
        } catch {
            throw StoreError(error, path: path, busyTimeout: busyTimeout)
        }
    }

    /// Runs `body` in a write transaction (BEGIN IMMEDIATE): committed when it returns, rolled
    /// back when it throws. Every error is mapped to a ``StoreError``.
    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try database.write(body)
        } catch {
            throw StoreError(error, path: path, busyTimeout: busyTimeout)
        }
    }

    static func thresholds(_ db: Database) throws -> GlucoseThresholds {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT very_low_mgdl, low_mgdl, high_mgdl, very_high_mgdl FROM store_config WHERE id = 1")
        else { return .consensus }
        do {
            return try GlucoseThresholds(veryLow: row[0], low: row[1], high: row[2], veryHigh: row[3])
        } catch {
            throw StoreError.database("the thresholds kept in the store are invalid: \(error)")
        }
    }

    // MARK: - Opening

    /// Fails early, with a clear error, on a file or folder this user cannot write.
    private static func checkAccess(_ path: String) throws(StoreError) {
        let folder = (path as NSString).deletingLastPathComponent
        let folderPath = folder.isEmpty ? "." : folder
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folderPath, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw .cannotOpen(path: path, reason: "the folder \(folderPath) does not exist") }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard !isDirectory.boolValue else { throw .cannotOpen(path: path, reason: "it is a folder") }
            guard isWritable(path) else { throw .readOnly(path: path) }
        }
        guard isWritable(folderPath) else { throw .readOnly(path: path) }
    }

    /// Whether the effective user may write `path` (unlike `access(2)`, which asks for the real user).
    private static func isWritable(_ path: String) -> Bool {
        faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0
    }

    /// Migrates the store when needed, stamps it with ``applicationID``, and returns the
    /// identifier of the zone it keeps, storing `newZone` when the store has none yet. Takes the
    /// write lock only when there is work to do; without `mayWrite`, a store that needs work is
    /// refused instead. A store written from ``NewStoreImage`` gets its own sync uid in the same
    /// commit as its settings (also when a process died between the two: the image's uid is
    /// never kept).
    private static func prepare(
        _ database: any DatabaseWriter, path: String, busyTimeout: TimeInterval, newZone: TimeZone, mayWrite: Bool
    ) throws(StoreError) -> String {
        let migrator = Migrations.migrator
        do {
            let (unknown, skipped, missing, zone, stamped) = try database.read { db in
                let known = Set(migrator.migrations)
                let applied = try migrator.appliedIdentifiers(db)
                let unknown = applied.filter { !known.contains($0) }.sorted()
                let skipped = StoreFile.skippedMigrations(applied: applied, known: migrator.migrations)
                let missing = migrator.migrations.filter { !applied.contains($0) }
                let zone =
                    missing.isEmpty
                    ? try String.fetchOne(db, sql: "SELECT time_zone FROM store_config WHERE id = 1")
                    : nil
                let stamped = UInt32(bitPattern: try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0) == applicationID
                return (unknown, skipped, missing, zone, stamped)
            }
            guard unknown.isEmpty else { throw StoreError.newerSchema(path: path, unknownMigrations: unknown) }
            guard skipped.isEmpty else { throw StoreError.migrationsDamaged(path: path, missing: skipped) }
            if missing.isEmpty, let zone, stamped { return zone }
            guard mayWrite else {
                if !missing.isEmpty { throw StoreError.outOfDate(path: path, missing: missing) }
                if let zone { return zone }
                throw StoreError.noStore(path: path)
            }
            // Stamped first, in a commit of its own: a store interrupted while it is being made
            // (the migrator writes its own table before the first migration) is then known as
            // glucobridge's, and the next open finishes it.
            if !stamped {
                try database.write { db in try db.execute(sql: "PRAGMA application_id = \(Int32(bitPattern: applicationID))") }
            }
            try migrate(database, with: migrator, path: path)
            return try database.write { db in
                try db.execute(
                    sql: "UPDATE sync_store SET uid = \(Migrations.newUID) WHERE id = 1 AND uid = ?",
                    arguments: [NewStoreImage.placeholderUID])
                let consensus = GlucoseThresholds.consensus
                try db.execute(
                    sql: """
                        INSERT INTO store_config (id, time_zone, very_low_mgdl, low_mgdl, high_mgdl, very_high_mgdl)
                        VALUES (1, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING
                        """,
                    arguments: [newZone.identifier, consensus.veryLow, consensus.low, consensus.high, consensus.veryHigh])
                return try String.fetchOne(db, sql: "SELECT time_zone FROM store_config WHERE id = 1") ?? newZone.identifier
            }
        } catch {
            throw StoreError(error, path: path, busyTimeout: busyTimeout)
        }
    }

    /// Makes the schema of a new store in one transaction (``Migrations/createSchema(in:)``), or
    /// runs the migrations an older store has not applied (all after the applied ones), one
    /// transaction each. A failure names the migration.
    private static func migrate(_ database: any DatabaseWriter, with migrator: DatabaseMigrator, path: String) throws {
        let (applied, isNew) = try database.read { db in
            // Nothing but, at most, the migrator's own table left by a store interrupted while
            // it was being made.
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
            return (try migrator.appliedIdentifiers(db), tables.allSatisfy { $0 == "grdb_migrations" })
        }
        if applied.isEmpty, isNew {
            do {
                try database.writeWithoutTransaction { db in try Migrations.createSchema(in: db) }
            } catch let error as Migrations.SchemaStepError {
                throw try migrationFailure(error.underlying, migration: error.identifier, path: path)
            }
            return
        }
        for migration in migrator.migrations where !applied.contains(migration) {
            do {
                try migrator.migrate(database, upTo: migration)
            } catch let error as DatabaseError {
                throw try migrationFailure(error, migration: migration, path: path)
            }
        }
    }

    /// A migration's failure as ``StoreError/migrationFailed(path:migration:reason:)``; a failure
    /// of the file or its lock is thrown as it is, for ``StoreError`` to word.
    private static func migrationFailure(_ error: DatabaseError, migration: String, path: String) throws -> StoreError {
        let environmental: [ResultCode] = [.SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_READONLY, .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_CANTOPEN]
        if environmental.contains(error.resultCode) { throw error }
        return StoreError.migrationFailed(path: path, migration: migration, reason: error.message ?? "\(error.resultCode)")
    }
}

extension GlucoseThresholds {
    /// The tag the store gives a value, decided in the unit the device reported it in: a reading
    /// in mmol/L by its mmol/L value (against 3.0, 3.9, 10.0, 13.9), any other by its mg/dL value
    /// as sent (69.6 is below 70).
    func storeTag(mgdl: Double, unit: GlucoseUnit) -> GlucoseTag {
        switch unit {
        case .milligramsPerDeciliter: tag(mgdl: mgdl)
        case .millimolesPerLiter: tag(mmolPerLiter: mgdl / GlucoseUnit.mgdlPerMmol)
        }
    }
}
