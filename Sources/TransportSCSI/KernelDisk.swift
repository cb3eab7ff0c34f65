import Foundation
import Transport

/// The SCSI nodes the kernel made for a USB disk, found through sysfs from the USB device
/// (Documentation/ABI/stable/sysfs-bus-usb and the driver model's links): the device's folder
/// under /sys/bus/usb/devices holds its interfaces, each bound to usb-storage a `hostN`, under it
/// `targetN:0:0/N:0:0:0`, whose `scsi_generic/sgN` and `block/sdX` name the nodes.
package struct KernelDisk: Sendable, Equatable {
    /// `/dev/sg1`, when the sg module is loaded.
    package var genericNode: String?
    /// `/dev/sda`.
    package var blockNode: String?

    /// The node to send SCSI commands to: `sg`, else the block node.
    package var node: String? { genericNode ?? blockNode }

    /// The disk of the USB device at `bus` and `address`, nil when there is no such device or no
    /// SCSI disk under it.
    package static func find(bus: UInt16, address: UInt8, sysfs: String = "/sys/bus/usb/devices", dev: String = "/dev") -> KernelDisk? {
        let files = FileManager.default
        guard let entries = try? files.contentsOfDirectory(atPath: sysfs) else { return nil }
        for entry in entries.sorted() where !entry.contains(":") {
            let folder = sysfs + "/" + entry
            guard number(folder + "/busnum") == Int(bus), number(folder + "/devnum") == Int(address) else { continue }
            var disk = KernelDisk()
            search(URL(fileURLWithPath: folder).resolvingSymlinksInPath().path, depth: 0, into: &disk, dev: dev)
            return disk.node == nil ? nil : disk
        }
        return nil
    }

    /// The disk of a USB device just plugged in: the kernel makes its SCSI nodes a moment after
    /// the USB device itself (usb-storage waits its `delay_use`, one second by default, before it
    /// scans the disk), so sysfs is looked at again every 0.1 s for up to `seconds`.
    package static func find(
        bus: UInt16, address: UInt8, waiting seconds: Double, sysfs: String = "/sys/bus/usb/devices", dev: String = "/dev"
    ) -> KernelDisk? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while true {
            if let disk = find(bus: bus, address: address, sysfs: sysfs, dev: dev) { return disk }
            guard Date() < deadline else { return nil }
            usleep(100_000)
        }
    }

    /// Walks the device's own folders (not the links back up the tree) for `scsi_generic` and
    /// `block`.
    private static func search(_ folder: String, depth: Int, into disk: inout KernelDisk, dev: String) {
        guard depth < 8, let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for entry in entries.sorted() {
            let path = folder + "/" + entry
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            if (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil { continue }
            switch entry {
            case "scsi_generic":
                if disk.genericNode == nil, let name = (try? FileManager.default.contentsOfDirectory(atPath: path))?.sorted().first {
                    disk.genericNode = dev + "/" + name
                }
            case "block":
                if disk.blockNode == nil, let name = (try? FileManager.default.contentsOfDirectory(atPath: path))?.sorted().first {
                    disk.blockNode = dev + "/" + name
                }
            case "power", "driver", "subsystem", "firmware_node", "port", "bsg", "scsi_device", "scsi_disk", "scsi_host":
                continue
            default:
                search(path, depth: depth + 1, into: &disk, dev: dev)
            }
        }
    }

    private static func number(_ path: String) -> Int? {
        (try? String(contentsOfFile: path, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}
