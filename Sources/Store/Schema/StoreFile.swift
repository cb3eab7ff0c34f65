import Foundation
import GRDBSQLite

/// What is at a store's path, found before glucobridge writes anything there: the check that
/// keeps glucobridge from adding its tables to another program's database.
///
/// A glucobridge store carries its own SQLite `application_id` (``SharedStore/applicationID``) in
/// its header. Stores made before the id was set are recognised by their `grdb_migrations` table
/// holding glucobridge's migrations, and are stamped when next opened for writing. Anything else
/// that holds tables is refused, untouched: the check reads the file's header and then, only when
/// the header has no id, asks SQLite for the table names over a read-only connection, which
/// writes nothing (no journal mode change, no table).
enum StoreFile: Equatable {
    /// Nothing at the path.
    case absent
    /// A file with no content yet: zero bytes, or an SQLite database without a table.
    case empty
    /// A glucobridge store; `stamped` when its header carries glucobridge's application id.
    case glucobridge(stamped: Bool)

    /// The first migration: every glucobridge store has it.
    static let firstMigration = "v1-app-model-and-ingest"
    /// Tables the first migration makes, all of which an unstamped glucobridge store holds.
    static let firstTables: Set<String> = ["store_config", "day", "source", "import_run", "source_cursor", "glucose"]

    /// Looks at `path` without writing to it.
    /// - Throws: `.notAStore` naming what the file holds; `.migrationsDamaged`; the mapped SQLite
    ///   error when the file cannot be read (locked, unreadable).
    static func inspect(_ path: String, busyTimeout: TimeInterval, knownMigrations: [String]) throws(StoreError) -> StoreFile {
        var status = stat()
        guard stat(path, &status) == 0 else { return .absent }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw .cannotOpen(path: path, reason: "it is a folder")
        case S_IFCHR, S_IFBLK: throw .notAStore(path: path, holds: "a device, not a regular file")
        case S_IFIFO: throw .notAStore(path: path, holds: "a pipe, not a regular file")
        case S_IFSOCK: throw .notAStore(path: path, holds: "a socket, not a regular file")
        default: throw .notAStore(path: path, holds: "something that is not a regular file")
        }
        guard status.st_size > 0 else { return .empty }
        let header: [UInt8]
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            header = [UInt8](try handle.read(upToCount: 100) ?? Data())
        } catch {
            throw .cannotOpen(path: path, reason: "it cannot be read (\(error.localizedDescription))")
        }
        guard header.count == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else {
            throw .notAStore(path: path, holds: "\(status.st_size) bytes that are not an SQLite database")
        }
        let headerID = header[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        if headerID == SharedStore.applicationID { return .glucobridge(stamped: true) }
        if headerID != 0 {
            throw .notAStore(
                path: path, holds: "another program's SQLite database (application_id 0x\(String(headerID, radix: 16, uppercase: true)))")
        }
        return try inspectTables(path, header: header, busyTimeout: busyTimeout, knownMigrations: knownMigrations)
    }

    /// The header had no application id: decide from the tables, read over a read-only connection.
    private static func inspectTables(
        _ path: String, header: [UInt8], busyTimeout: TimeInterval, knownMigrations: [String]
    ) throws(StoreError) -> StoreFile {
        // A WAL database (header bytes 18–19 are 2) read with no `-wal` beside it is complete in
        // the file, and is read as immutable: a plain read-only connection would leave `-wal` and
        // `-shm` files beside another program's database.
        let immutable = header[18] == 2 && !FileManager.default.fileExists(atPath: path + "-wal")
        let connection = try ReadOnlyConnection(path: path, immutable: immutable, busyTimeout: busyTimeout)
        defer { connection.close() }
        // The id may be set in a write-ahead log not yet copied into the file.
        let id = UInt32(bitPattern: Int32(truncatingIfNeeded: Int(try connection.strings("PRAGMA application_id").first ?? "0") ?? 0))
        if id == SharedStore.applicationID { return .glucobridge(stamped: true) }
        if id != 0 {
            throw .notAStore(path: path, holds: "another program's SQLite database (application_id 0x\(String(id, radix: 16, uppercase: true)))")
        }
        let tables = try connection.strings(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        // Only the migrator's own table, with nothing in it: a store whose making was interrupted
        // before its first migration (by a glucobridge older than the stamp-first rule). It holds
        // no data, so it is as good as empty.
        if tables == ["grdb_migrations"], try connection.strings("SELECT COUNT(*) FROM grdb_migrations") == ["0"] {
            return .empty
        }
        if tables.isEmpty {
            // No table yet, but a program marked it as its own (`PRAGMA user_version`).
            let version = header[60..<64].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard version == 0 else {
                throw .notAStore(path: path, holds: "an SQLite database with no table yet, marked by another program (user_version \(version))")
            }
            return .empty
        }
        guard tables.contains("grdb_migrations"), firstTables.isSubset(of: tables) else {
            throw .notAStore(path: path, holds: describe(tables))
        }
        let applied = try connection.strings("SELECT identifier FROM grdb_migrations")
        guard applied.contains(firstMigration), Set(applied).isSubset(of: knownMigrations) else {
            let foreign = applied.filter { !knownMigrations.contains($0) }.prefix(3).joined(separator: ", ")
            throw .notAStore(path: path, holds: describe(tables) + " and migrations glucobridge did not make (\(foreign))")
        }
        let skipped = skippedMigrations(applied: Set(applied), known: knownMigrations)
        if !skipped.isEmpty { throw .migrationsDamaged(path: path, missing: skipped) }
        return .glucobridge(stamped: false)
    }

    /// Migrations not applied that come before an applied one. Migrations run in order, so any
    /// such one means the record of applied migrations was edited.
    static func skippedMigrations(applied: Set<String>, known: [String]) -> [String] {
        guard let last = known.lastIndex(where: applied.contains) else { return [] }
        return known[..<last].filter { !applied.contains($0) }
    }

    /// `tables foo, bar` or `12 tables (a, b, c, …)`.
    static func describe(_ tables: [String]) -> String {
        let shown = tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? ", …" : "")
        return tables.count == 1 ? "a database with the table \(shown)" : "a database with \(tables.count) tables (\(shown))"
    }
}

/// A read-only SQLite connection through the C API, which (unlike GRDB's) can open a file as
/// immutable: it then takes no lock and creates no file.
private final class ReadOnlyConnection {
    private var handle: OpaquePointer?
    private let path: String
    private let busyTimeout: TimeInterval

    init(path: String, immutable: Bool, busyTimeout: TimeInterval) throws(StoreError) {
        self.path = path
        self.busyTimeout = busyTimeout
        var name = path
        var flags = SQLITE_OPEN_READONLY
        if immutable {
            let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
            name = "file:\(encoded)?immutable=1"
            flags |= SQLITE_OPEN_URI
        }
        let code = sqlite3_open_v2(name, &handle, flags, nil)
        guard code == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "error \(code)"
            close()
            throw Self.error(code, message, path: path, busyTimeout: busyTimeout)
        }
        sqlite3_busy_timeout(handle, Int32(busyTimeout * 1000))
    }

    /// The first column of every row `sql` gives, as text.
    func strings(_ sql: String) throws(StoreError) -> [String] {
        var statement: OpaquePointer?
        var code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        var rows: [String] = []
        while code == SQLITE_OK || code == SQLITE_ROW {
            code = sqlite3_step(statement)
            if code == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) {
                rows.append(String(cString: text))
            }
        }
        guard code == SQLITE_DONE else {
            throw Self.error(code, String(cString: sqlite3_errmsg(handle)), path: path, busyTimeout: busyTimeout)
        }
        return rows
    }

    func close() {
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// The store error for an SQLite result code: a file SQLite cannot read as a database is not
    /// a store; the rest as for any store access.
    static func error(_ code: Int32, _ message: String, path: String, busyTimeout: TimeInterval) -> StoreError {
        switch code & 0xFF {
        case SQLITE_NOTADB, SQLITE_CORRUPT: .notAStore(path: path, holds: "a damaged SQLite database (SQLite: \(message))")
        case SQLITE_BUSY, SQLITE_LOCKED: .locked(path: path, waitedSeconds: busyTimeout)
        case SQLITE_CANTOPEN, SQLITE_PERM: .cannotOpen(path: path, reason: "it cannot be read (SQLite: \(message))")
        case SQLITE_FULL: .noSpace(path: path, reason: message)
        case SQLITE_IOERR: StoreError.noSpaceLeft(besides: path) ? .noSpace(path: path, reason: message) : .ioFailure(path: path, reason: message)
        default: .sqlite(path: path, message: message, code: code)
        }
    }
}
