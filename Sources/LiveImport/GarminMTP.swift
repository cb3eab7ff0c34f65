import Drivers
import Foundation
import Importer
import Transport
import TransportMTP

/// A Garmin watch that speaks MTP instead of being a USB disk (vendor 091e, no mass-storage
/// interface): the FIT files of its `GARMIN/Activity` and `GARMIN/Monitor` folders are copied
/// through libmtp into a private folder, imported as FIT files are, and the copies deleted. The
/// watch is only read: no file on it is changed or deleted.
package enum GarminMTP {
    /// The Garmin devices plugged in without a mass-storage interface, in sysfs order.
    package static func plugged(sysfs: String = "/sys") -> [USBDeviceLocation] {
        GarminDisk.garminDevices(sysfs: sysfs).filter { !$0.massStorage }.map(\.location)
    }

    /// Imports the FIT files of the MTP watch at `location`; `origin` names it in reports.
    package static func importWatch(
        at location: USBDeviceLocation, importer: Importer, context: ImportContext
    ) throws(ImportError) -> (origin: String, files: Int, result: ImportResult) {
        let watch: MTPDevice
        do { watch = try MTPDevice(at: location) } catch { throw .driver(error) }
        var listed: [MTPFile] = []
        do {
            for folder in GarminVolume.fitFolders { listed += try watch.files(in: folder) }
        } catch {
            throw .driver(error)
        }
        let files = listed.filter { $0.path.last?.lowercased().hasSuffix(".fit") ?? false }
        guard !files.isEmpty else {
            throw .files(.noFITFiles(folder: "the MTP watch \(watch.origin) (GARMIN/Activity, GARMIN/Monitor)"))
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glucobridge-mtp-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .driver(
                MTPError.copyFailed(device: watch.origin, file: "GARMIN", detail: "cannot make \(folder.path): \(error.localizedDescription)"))
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        // Copied first, then imported: a watch unplugged mid-copy stores the files copied whole.
        var copies: [URL] = []
        var paths: [String: String] = [:]
        var failure: MTPError?
        for (index, file) in files.enumerated() {
            // Each copy in a folder of its own under the file's own name (two storages may hold
            // the same path), named in reports by its path on the watch.
            let copy = folder.appendingPathComponent("\(index)").appendingPathComponent(file.path.last ?? "file.fit")
            do {
                try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: false)
                try watch.copy(file, to: copy)
                copies.append(copy)
                paths[copy.path] = "mtp:" + file.path.joined(separator: "/")
            } catch let error as MTPError {
                failure = error
                break
            } catch {
                failure = .copyFailed(device: watch.origin, file: file.path.joined(separator: "/"), detail: error.localizedDescription)
                break
            }
        }
        let name = { (copy: URL) -> String in (paths[copy.path] ?? copy.lastPathComponent) + " on " + watch.origin }
        let origin = "\(watch.origin) (MTP)"
        guard let failure else {
            return (
                origin, files.count,
                ImportResult(devices: try importer.importFIT(copies, origin: origin, skippingOthers: true, context: context, name: name))
            )
        }
        var stored = 0
        if !copies.isEmpty, let result = try? importer.importFIT(copies, origin: origin, skippingOthers: true, context: context, name: name) {
            stored = result.count
        }
        let cut: (file: String, reason: String)
        switch failure {
        case .copyFailed(_, let file, let detail): cut = (file, detail)
        default: cut = (files[copies.count].path.joined(separator: "/"), failure.description)
        }
        throw .driver(GarminVolumeError.cutShort(watch: origin, file: cut.file, reason: cut.reason, stored: stored, of: files.count))
    }
}

/// An MTP watch's failures (none found, a listing or a copy refused) end its import as a
/// driver's error does.
extension MTPError: DriverError {}
