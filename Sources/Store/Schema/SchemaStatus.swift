import Foundation
import GRDB

/// How a store file's schema compares with this version of glucobridge, found without changing it.
public enum SchemaStatus: Equatable, Sendable {
    /// Every migration this glucobridge knows has been applied, and no other; `latest` names the last.
    case current(latest: String)
    /// The store predates these migrations; the next write by glucobridge applies them.
    case behind(missing: [String])
    /// The store was migrated by a newer glucobridge.
    case newer(unknown: [String])
}

extension SharedStore {
    /// The names of the schema migrations this glucobridge applies, oldest first.
    public static var schemaMigrations: [String] { Migrations.migrator.migrations }

    /// Reads the schema state of the store at `path` through a read-only connection: nothing is
    /// created, migrated or locked for writing. Throws ``StoreError`` (`.cannotOpen`, `.corrupt`, …)
    /// when the file cannot be read as a store.
    public static func schemaStatus(at path: String) throws(StoreError) -> SchemaStatus {
        guard FileManager.default.fileExists(atPath: path) else {
            throw .cannotOpen(path: path, reason: "the file does not exist")
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            let applied = try queue.read { db -> [String] in
                guard try db.tableExists("grdb_migrations") else { return [] }
                return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            }
            let known = schemaMigrations
            let unknown = applied.filter { !known.contains($0) }.sorted()
            if !unknown.isEmpty { return .newer(unknown: unknown) }
            let missing = known.filter { !applied.contains($0) }
            if !missing.isEmpty { return .behind(missing: missing) }
            return .current(latest: known.last ?? "")
        } catch {
            throw StoreError(error, path: path, busyTimeout: 5)
        }
    }
}

/// What a migration did to the rows a store already held (a count and a sentence), kept in the
/// store for `doctor`.
public struct MigrationNote: Equatable, Sendable {
    public var migration: String
    public var appliedAt: Date
    /// How many rows it changed.
    public var changed: Int
    public var note: String
}

extension SharedStore {
    /// The notes of the migrations that changed stored rows, oldest first, read through a
    /// read-only connection; none for a store made new by this glucobridge or not yet migrated.
    public static func migrationNotes(at path: String) throws(StoreError) -> [MigrationNote] {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db -> [MigrationNote] in
                guard try db.tableExists("migration_note") else { return [] }
                return try Row.fetchAll(db, sql: "SELECT identifier, applied_at, changed, note FROM migration_note ORDER BY applied_at, identifier")
                    .map { row in
                        let applied: String = row["applied_at"]
                        return MigrationNote(
                            migration: row["identifier"], appliedAt: StoreTime.date(applied) ?? Date(timeIntervalSince1970: 0),
                            changed: row["changed"], note: row["note"])
                    }
            }
        } catch {
            throw StoreError(error, path: path, busyTimeout: 5)
        }
    }
}
