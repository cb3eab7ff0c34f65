import Foundation
import Store

extension StoreOptions {
    /// Opens the store, creating its folder when needed.
    func open() throws -> SharedStore {
        let path = self.path
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw CLIError("cannot create the store folder \(folder): \(error.localizedDescription)")
            }
        }
        return try SharedStore(path: path, timeZone: try timeZone())
    }
}
