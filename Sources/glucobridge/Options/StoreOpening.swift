import Foundation
import Store

extension StoreOptions {
    /// Opens the store for a command that writes: creates its folder and the store when missing,
    /// and brings an older store up to date. Another program's database is refused untouched.
    /// A command that does one job and exits uses one connection (`.serial`); one that keeps
    /// running and reads while it writes (the daemon) asks for `.concurrent`.
    func open(access: SharedStore.Access = .serial) throws -> SharedStore {
        let path = self.path
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw CLIError("cannot create the store folder \(folder): \(error.localizedDescription)")
            }
        }
        return try SharedStore(path: path, timeZone: try timeZone(), access: access)
    }

    /// Opens the store for a command that only reads: creates nothing (no folder, no file) and
    /// migrates nothing. A path with no store there is an error naming `--store` and the default.
    func openExisting() throws -> SharedStore {
        let path = self.path
        do {
            return try SharedStore(path: path, timeZone: try timeZone(), mode: .existing, access: .serial)
        } catch StoreError.noStore {
            throw CLIError(Self.noStoreMessage(path: path, given: store != nil, defaultPath: defaultPath))
        }
    }

    /// The store used without `--store`.
    var defaultPath: String {
        var withoutStore = self
        withoutStore.store = nil
        return withoutStore.path
    }

    /// `no store at PATH`, and how to name the right one.
    static func noStoreMessage(path: String, given: Bool, defaultPath: String) -> String {
        let how =
            given
            ? "check the path given with --store (without --store, glucobridge uses \(defaultPath))"
            : "this is the default store; name another with --store PATH"
        return "no store at \(path): nothing has been imported there and this command creates none; \(how)"
    }
}
