import Drivers
import Foundation
import Transport

/// Why a Garmin watch's volume was not imported.
package enum GarminVolumeError: DriverError {
    case notAGarminVolume(root: String)
    /// A file could not be read (the watch unplugged, an I/O error): the `stored` files before it
    /// were stored whole, the rest wait for the next import.
    case cutShort(watch: String, file: String, reason: String, stored: Int, of: Int)

    package var description: String {
        switch self {
        case .notAGarminVolume(let root): "\(root) is not a Garmin watch's volume: it holds no GARMIN/GarminDevice.xml"
        case .cutShort(let watch, let file, let reason, let stored, let total):
            "the Garmin watch \(watch): \(file) cannot be read (\(reason)); \(stored) of its \(total) FIT files were stored whole, "
                + "the next import reads the rest"
        }
    }
}

extension Importer {
    /// The FIT files (told by content) in a Garmin volume's `GARMIN/Activity` and `GARMIN/Monitor`,
    /// each folder by name, with the files that cannot be read at all (kept, so that the import
    /// names them rather than passing over them). Throws when `root` is not a Garmin volume.
    package static func garminFITFiles(under root: URL) throws(ImportError) -> [URL] {
        guard GarminVolume.isGarminVolume(root) else { throw .driver(GarminVolumeError.notAGarminVolume(root: root.path)) }
        var files: [URL] = []
        for components in GarminVolume.fitFolders {
            guard let folder = GarminVolume.path(components, under: root), isFolder(folder) else { continue }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            files += names.sorted().map { folder.appendingPathComponent($0) }.filter { file in
                !isFolder(file) && (FileBytes.prefix(ofPath: file.path, count: 12).map { FITDecoder.isFIT(prefix: $0) } ?? true)
            }
        }
        return files
    }

    /// Imports the FIT files of a Garmin watch's mounted volume at `root`, each its own record
    /// source, as ``importFIT(_:origin:skippingOthers:context:)`` does: files are only opened for
    /// reading, and a file already stored adds nothing. When a file cannot be read (the watch
    /// unplugged), the files before it are stored whole and the import fails naming it. `origin` names the watch (`usb 091e:2271 on bus 1 address 3`). A watch without FIT
    /// files is refused, naming its folders.
    package func importGarminVolume(_ root: URL, origin: String, context: ImportContext) throws(ImportError) -> ImportResult {
        let files = try Self.garminFITFiles(under: root)
        guard !files.isEmpty else {
            throw .files(.noFITFiles(folder: "\(root.path) (GARMIN/Activity, GARMIN/Monitor)"))
        }
        logger.info("Garmin volume", metadata: ["volume": "\(root.path)", "watch": "\(origin)", "files": "\(files.count)"])
        do {
            return ImportResult(devices: try importFIT(files, origin: "\(origin) (\(root.path))", skippingOthers: true, context: context))
        } catch {
            guard case .files(.unreadable(let path, let reason)) = error else { throw error }
            let readable = Array(files.prefix { $0.path != path })
            var stored = 0
            if !readable.isEmpty, let result = try? importFIT(readable, origin: "\(origin) (\(root.path))", skippingOthers: true, context: context) {
                stored = result.count
            }
            throw .driver(GarminVolumeError.cutShort(watch: origin, file: path, reason: reason, stored: stored, of: files.count))
        }
    }
}
