import Foundation
import Store

/// Why a sync could not start or finish, in words a person can act on. A sync that fails part
/// way keeps every batch it committed: running it again resumes after the last one.
package enum SyncError: Error, Equatable, CustomStringConvertible {
    /// The `--to` address is not a `postgresql://USER@HOST[:PORT]/DB[?sslmode=…]` URL.
    case invalidURL(String, reason: String)
    /// The address carries a password, which would show in process lists and shell history.
    case passwordInURL
    /// The password file named by `--password-file` could not be read or is empty.
    case passwordFile(path: String, reason: String)
    /// The patient id is empty or too long.
    case invalidPatient(String)
    /// A TLS certificate or key file could not be used.
    case tls(String)
    /// The server could not be reached or refused the login.
    case unreachable(server: String, reason: String)
    /// Another sync of the same patient (another machine, or another process) is running.
    case patientBusy(patient: String, server: String)
    /// The server's central schema is newer than this glucobridge knows.
    case newerCentralSchema(server: String, version: Int, known: Int)
    /// The server refused a statement.
    case server(String)
    /// The local store could not be read.
    case store(StoreError)
    /// The server's cursor for this store was not where this sync's last batch left it (the
    /// server lost a batch, e.g. a standby promoted without it, or another session moved it). The
    /// sync reads the cursor again and sends from there; this is thrown only when it keeps moving.
    case cursorMoved(cursor: String, expected: Int64?, found: Int64?)

    package var description: String {
        switch self {
        case .invalidURL(let url, let reason):
            return "the server address \"\(url)\" is not usable: \(reason); write it as postgresql://USER@HOST[:PORT]/DATABASE[?sslmode=require]"
        case .passwordInURL:
            return
                "the server address holds a password; remove it and give the password through PGPASSWORD, ~/.pgpass or --password-file, so that it never shows on the command line"
        case .passwordFile(let path, let reason):
            return "cannot read the password file \(path): \(reason)"
        case .invalidPatient(let patient):
            return "the patient id \"\(patient)\" is not usable: give 1 to 200 characters"
        case .tls(let reason):
            return "TLS cannot be set up: \(reason)"
        case .unreachable(let server, let reason):
            return "cannot reach the PostgreSQL server \(server): \(reason)"
        case .patientBusy(let patient, let server):
            return
                "another sync of patient \(patient) into \(server) is running (from another machine or process); nothing was sent; try again when it has finished"
        case .newerCentralSchema(let server, let version, let known):
            return "the central schema on \(server) is at version \(version), newer than this glucobridge knows (\(known)); update glucobridge"
        case .server(let message):
            return "the server refused the sync: \(message)"
        case .store(let error):
            return error.description
        case .cursorMoved(let cursor, let expected, let found):
            func text(_ value: Int64?) -> String { value.map(String.init) ?? "none" }
            return "the server's sync cursor \(cursor) was \(text(found)), not \(text(expected)) as this sync's last batch left "
                + "it, again and again (is another program changing sync_cursor?); nothing stored was lost: run the sync again"
        }
    }
}
