import Foundation
import GRDB

/// Why the store could not be opened, read or written, in words a person can act on.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    /// The file could not be opened or created (missing folder, a directory in its place, …).
    case cannotOpen(path: String, reason: String)
    /// The file, or the folder it needs for its `-wal` and `-shm` files, cannot be written.
    case readOnly(path: String)
    /// Another program held the write lock for longer than the busy timeout.
    case locked(path: String, waitedSeconds: Double)
    /// The file is not an SQLite database, or SQLite found it damaged.
    case corrupt(path: String, reason: String)
    /// The store was migrated by a newer glucobridge: it has migrations this version does not know.
    case newerSchema(path: String, unknownMigrations: [String])
    /// The store keeps its Days in `stored`; the caller asked for `requested`.
    case timeZoneMismatch(stored: String, requested: String)
    /// The time zone kept in the store is not known to this system.
    case invalidTimeZone(String)
    /// A reading of an import is impossible; nothing of the import was written.
    case invalidReading(recordKey: String, reason: String)
    /// An import as a whole is inconsistent (e.g. fewer records read than readings offered);
    /// nothing of it was written.
    case invalidBatch(reason: String)
    /// A log's values are ones the store refuses (e.g. a negative weight, an episode that ends
    /// before it starts); nothing was written.
    case invalidLog(kind: LogKind, reason: String)
    /// No log of `kind` has the id `id` (it was removed, or never stored).
    case notFound(kind: LogKind, id: Int64)
    /// The log was imported from a device (`source`): a re-import would bring the original back,
    /// so it cannot be edited or removed through the app's path.
    case importedLogIsReadOnly(kind: LogKind, id: Int64, source: String)
    /// An episode of `kind` is already open (started at `since`, shown in the store's `zone`):
    /// stop it before starting another.
    case episodeAlreadyOpen(kind: LogKind, since: Date, zone: TimeZone)
    /// There is no open episode of `kind` to stop.
    case noOpenEpisode(kind: LogKind)
    /// Any other SQLite failure.
    case database(String)
    /// The file holds something other than a glucobridge store (`holds` says what); it was left
    /// exactly as it was.
    case notAStore(path: String, holds: String)
    /// A command that only reads found no store at the path (it creates none).
    case noStore(path: String)
    /// A command that only reads found a store made by an older glucobridge, which it does not
    /// update: it lacks these migrations.
    case outOfDate(path: String, missing: [String])
    /// The store's record of applied migrations lacks ones that come before applied ones: it was
    /// edited by another program.
    case migrationsDamaged(path: String, missing: [String])
    /// Bringing the store up to date failed in `migration`: its tables do not match its record of
    /// applied migrations.
    case migrationFailed(path: String, migration: String, reason: String)
    /// SQLite could not read or write the file reliably (an I/O error: a device, a full or
    /// failing disk, a network share without locking).
    case ioFailure(path: String, reason: String)
    /// A failure SQLite reports that glucobridge has no more specific words for.
    case sqlite(path: String, message: String, code: Int32)
    /// The file system holding the store has no space left (SQLite: `reason`); the transaction
    /// that needed it was rolled back, so nothing of it was written.
    case noSpace(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "cannot open the store \(path): \(reason)"
        case .readOnly(let path):
            "the store \(path) is read-only; glucobridge needs to write to the file and to create "
                + "files beside it: make both the file and its folder writable for this user"
        case .locked(let path, let waited):
            "the store \(path) is locked by another program (waited \(Self.seconds(waited))); "
                + "try again when it has finished writing"
        case .corrupt(let path, let reason):
            "the store \(path) is damaged or is not a glucobridge store (\(reason)); restore it "
                + "from a backup, or move it aside so that a new store is created"
        case .newerSchema(let path, let unknown):
            "the store \(path) was upgraded by a newer glucobridge (unknown migrations: "
                + "\(unknown.joined(separator: ", "))); update glucobridge to use it"
        case .timeZoneMismatch(let stored, let requested):
            "the store keeps its days in the time zone \(stored), not \(requested); open it "
                + "without a time zone, or with \(stored)"
        case .invalidTimeZone(let identifier):
            "the store's time zone \"\(identifier)\" is not known to this system; install the "
                + "time zone database (tzdata)"
        case .invalidReading(let recordKey, let reason):
            "reading \"\(recordKey)\" is invalid: \(reason); nothing from this import was stored"
        case .invalidBatch(let reason):
            "the import is inconsistent: \(reason); nothing from it was stored"
        case .invalidLog(let kind, let reason):
            "the \(kind) log is invalid: \(reason); nothing was stored"
        case .notFound(let kind, let id):
            "there is no \(kind) log #\(id) in the store; it may have been removed by another program — "
                + "read the Day again"
        case .importedLogIsReadOnly(let kind, let id, let source):
            "\(kind) log #\(id) was imported from the device \(source) and cannot be edited or removed: "
                + "a re-import would bring the device's record back; add a corrected log instead"
        case .episodeAlreadyOpen(let kind, let since, let zone):
            "\(kind == .illness ? "an" : "a") \(kind) episode is already open (since \(LocalTimeText.named(since, zone: zone))); "
                + "stop it before starting another"
        case .noOpenEpisode(let kind):
            "there is no open \(kind) episode to stop; start one first"
        case .database(let message):
            "database error: \(message)"
        case .notAStore(let path, let holds):
            "\(path) is not a glucobridge store: it holds \(holds). glucobridge left it untouched; "
                + "give another path with --store (or move this file aside)"
        case .noStore(let path):
            "no store at \(path): nothing has been imported there. Give the store's path with --store, "
                + "or import first (glucobridge replay FILE, glucobridge import)"
        case .outOfDate(let path, let missing):
            "the store \(path) was made by an older glucobridge and lacks \(missing.joined(separator: ", ")); "
                + "this command only reads, so it does not update it: run an import (or any command that "
                + "writes) once to bring it up to date"
        case .migrationsDamaged(let path, let missing):
            "the store \(path) has a damaged record of its schema: migrations \(missing.joined(separator: ", ")) "
                + "are missing from its grdb_migrations table while later ones are there, so another program "
                + "changed it; glucobridge left it untouched: restore it from a backup, or give a new store with --store"
        case .migrationFailed(let path, let migration, let reason):
            "the store \(path) could not be brought up to date: migration \(migration) failed (SQLite: \(reason)). "
                + "Its tables do not match its record of applied migrations, so another program changed it; "
                + "nothing was changed: restore it from a backup, or give a new store with --store"
        case .noSpace(let path, let reason):
            "the store \(path): no space left on its file system (SQLite: \(reason)); nothing of this write was "
                + "stored and the store is as it was: free some space and try again"
        case .ioFailure(let path, let reason):
            "the store \(path) cannot be read or written reliably (SQLite: \(reason)); a store must be a "
                + "regular file on a local disk with space left: check the disk, or give another path with --store"
        case .sqlite(let path, let message, let code):
            "the store \(path) could not be used: SQLite reports \"\(message)\" (error \(code)); if it "
                + "happens again, check the file with `glucobridge doctor`, or give another path with --store"
        }
    }

    /// Whether the file system holding `path` has no block left for an unprivileged writer: an
    /// I/O error SQLite reports then (growing its `-shm` or `-wal` file) is the full disk.
    static func noSpaceLeft(besides path: String) -> Bool {
        var info = statvfs()
        let folder = (path as NSString).deletingLastPathComponent
        guard statvfs(folder.isEmpty ? "." : folder, &info) == 0 else { return false }
        return info.f_bavail == 0
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}

extension StoreError {
    /// Maps any error thrown while using the store at `path` to a `StoreError`.
    init(_ error: any Error, path: String, busyTimeout: TimeInterval) {
        if let error = error as? StoreError {
            self = error
            return
        }
        guard let error = error as? DatabaseError else {
            self = .database(String(describing: error))
            return
        }
        let message = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            self = .locked(path: path, waitedSeconds: busyTimeout)
        case .SQLITE_READONLY, .SQLITE_PERM:
            self = .readOnly(path: path)
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            self = .corrupt(path: path, reason: message)
        case .SQLITE_CANTOPEN:
            self = .cannotOpen(path: path, reason: message)
        case .SQLITE_FULL:
            self = .noSpace(path: path, reason: message)
        case .SQLITE_IOERR:
            self = Self.noSpaceLeft(besides: path) ? .noSpace(path: path, reason: message) : .ioFailure(path: path, reason: message)
        default:
            self = .sqlite(path: path, message: message, code: error.extendedResultCode.rawValue)
        }
    }
}
