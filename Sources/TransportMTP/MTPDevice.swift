import CLibMTP
import Foundation
import Transport

/// Why a device could not be read over MTP; `description` is one line a person can act on.
package enum MTPError: Error, Equatable, CustomStringConvertible {
    /// No MTP device at `location` (it answers no MTP, or it was unplugged).
    case notFound(location: String)
    /// libmtp found the device but could not open its session (another program holds it, e.g. a
    /// desktop's file manager, or no permission on its USB node).
    case cannotOpen(location: String)
    /// Listing the device's storage or a folder failed; `detail` is libmtp's error stack.
    case listFailed(device: String, folder: String, detail: String)
    /// Copying a file off the device failed (unplugged mid-transfer, an I/O error).
    case copyFailed(device: String, file: String, detail: String)

    package var description: String {
        switch self {
        case .notFound(let location):
            "no MTP device at \(location): it is not an MTP device or it was unplugged"
        case .cannotOpen(let location):
            "the MTP device at \(location) cannot be opened: another program may hold it (a file manager, gvfs), "
                + "or this user may not open its USB node (see `glucobridge doctor`)"
        case .listFailed(let device, let folder, let detail):
            "the MTP device \(device): listing \(folder) failed (\(detail))"
        case .copyFailed(let device, let file, let detail):
            "the MTP device \(device): \(file) could not be copied (\(detail))"
        }
    }
}

/// A file on an MTP device: its object id, its path from the storage's root, its size.
package struct MTPFile: Sendable, Equatable {
    package var id: UInt32
    package var path: [String]
    package var size: UInt64
}

/// An MTP device opened through libmtp (https://libmtp.sourceforge.net), read-only: this type
/// lists folders and copies files off the device, and has no call that changes or deletes one.
package final class MTPDevice {
    private let device: UnsafeMutablePointer<LIBMTP_mtpdevice_t>
    /// `usb 091e:4c9a on bus 1 address 5`, as reports name USB devices.
    package let origin: String

    /// Opens the MTP device at `location`, or throws when there is none there.
    package init(at location: USBDeviceLocation) throws(MTPError) {
        MTPLibrary.initialise()
        var raw: UnsafeMutablePointer<LIBMTP_raw_device_t>?
        var count: Int32 = 0
        guard MTPLibrary.quietly({ LIBMTP_Detect_Raw_Devices(&raw, &count) }) == LIBMTP_ERROR_NONE, let raw else {
            throw .notFound(location: location.description)
        }
        defer { free(raw) }
        guard
            let index = (0..<Int(count)).first(where: {
                raw[$0].bus_location == UInt32(location.bus) && raw[$0].devnum == location.address
            })
        else { throw .notFound(location: location.description) }
        origin = String(format: "usb %04x:%04x on ", raw[index].device_entry.vendor_id, raw[index].device_entry.product_id) + "\(location)"
        guard let opened = MTPLibrary.quietly({ LIBMTP_Open_Raw_Device_Uncached(raw.advanced(by: index)) }) else {
            throw .cannotOpen(location: location.description)
        }
        device = opened
        LIBMTP_Clear_Errorstack(device)
    }

    deinit {
        LIBMTP_Release_Device(device)
    }

    /// The files under the folder `path` (e.g. `["GARMIN", "Activity"]`, matched without regard
    /// to case, as a FAT volume would) of every storage, in the order the device lists them;
    /// none when no storage has the folder.
    package func files(in path: [String]) throws(MTPError) -> [MTPFile] {
        if LIBMTP_Get_Storage(device, Int32(LIBMTP_STORAGE_SORTBY_NOTSORTED)) != 0 {
            throw .listFailed(device: origin, folder: "its storage", detail: errors())
        }
        var found: [MTPFile] = []
        var storage = device.pointee.storage
        while let current = storage {
            var parent = UInt32(LIBMTP_FILES_AND_FOLDERS_ROOT)
            var reached = true
            for name in path {
                let children = try list(storage: current.pointee.id, parent: parent, folder: path.joined(separator: "/"))
                guard let folder = children.first(where: { $0.isFolder && $0.name.lowercased() == name.lowercased() }) else {
                    reached = false
                    break
                }
                parent = folder.id
            }
            if reached {
                for entry in try list(storage: current.pointee.id, parent: parent, folder: path.joined(separator: "/")) where !entry.isFolder {
                    found.append(MTPFile(id: entry.id, path: path + [entry.name], size: entry.size))
                }
            }
            storage = current.pointee.next
        }
        return found
    }

    /// Copies `file` off the device into `destination` (a new file).
    package func copy(_ file: MTPFile, to destination: URL) throws(MTPError) {
        if LIBMTP_Get_File_To_File(device, file.id, destination.path, nil, nil) != 0 {
            throw .copyFailed(device: origin, file: file.path.joined(separator: "/"), detail: errors())
        }
    }

    private struct Entry {
        var id: UInt32
        var name: String
        var size: UInt64
        var isFolder: Bool
    }

    private func list(storage: UInt32, parent: UInt32, folder: String) throws(MTPError) -> [Entry] {
        var entries: [Entry] = []
        var next = LIBMTP_Get_Files_And_Folders(device, storage, parent)
        while let file = next {
            entries.append(
                Entry(
                    id: file.pointee.item_id, name: file.pointee.filename.map { String(cString: $0) } ?? "",
                    size: file.pointee.filesize, isFolder: file.pointee.filetype == LIBMTP_FILETYPE_FOLDER))
            next = file.pointee.next
            LIBMTP_destroy_file_t(file)
        }
        if entries.isEmpty, LIBMTP_Get_Errorstack(device) != nil {
            throw .listFailed(device: origin, folder: folder, detail: errors())
        }
        return entries
    }

    /// libmtp's error stack as one line, then cleared.
    private func errors() -> String {
        var texts: [String] = []
        var entry = LIBMTP_Get_Errorstack(device)
        while let current = entry {
            if let text = current.pointee.error_text { texts.append(String(cString: text)) }
            entry = current.pointee.next
        }
        LIBMTP_Clear_Errorstack(device)
        return texts.isEmpty ? "no detail from libmtp" : texts.joined(separator: "; ")
    }
}

/// libmtp's one-time set-up.
private enum MTPLibrary {
    private static let once: Void = LIBMTP_Init()

    static func initialise() { once }

    /// Runs `body` with standard output sent to /dev/null: libmtp prints what it makes of a
    /// device ("Android device detected, assigning default bug flags") to standard output
    /// whatever its debug level, which would otherwise run into the import's report.
    static func quietly<T>(_ body: () -> T) -> T {
        fflush(nil)
        let saved = dup(STDOUT_FILENO)
        let null = open("/dev/null", O_WRONLY)
        guard saved >= 0, null >= 0 else {
            if saved >= 0 { close(saved) }
            if null >= 0 { close(null) }
            return body()
        }
        dup2(null, STDOUT_FILENO)
        close(null)
        defer {
            fflush(nil)
            dup2(saved, STDOUT_FILENO)
            close(saved)
        }
        return body()
    }
}
