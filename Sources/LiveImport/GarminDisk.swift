import Drivers
import Foundation
import Transport

/// A Garmin watch plugged in as a USB disk (vendor 091e with a mass-storage interface), found
/// through sysfs, and the volume the system mounted from it, found in `/proc/self/mountinfo` by
/// its block devices' numbers. glucobridge never mounts the watch itself: the desktop's
/// automounter or the administrator's mount does (see docs/operating.md), and the import only
/// opens files for reading.
package struct GarminDisk: Sendable, Equatable {
    /// The device's sysfs folder (`/sys/bus/usb/devices/1-1`).
    package var sysfsFolder: String
    package var location: USBDeviceLocation
    package var productID: UInt16
    /// Its block devices (`sda`, `sda1`) with their `major:minor` numbers.
    package var blockDevices: [(name: String, number: String)]

    /// `usb 091e:2271 on bus 1 address 3`, as reports name USB devices.
    package var origin: String { String(format: "usb %04x:%04x on ", GarminVolume.vendorID, productID) + "\(location)" }

    package static func == (a: GarminDisk, b: GarminDisk) -> Bool {
        a.sysfsFolder == b.sysfsFolder && a.location == b.location && a.productID == b.productID
            && a.blockDevices.map(\.name) == b.blockDevices.map(\.name) && a.blockDevices.map(\.number) == b.blockDevices.map(\.number)
    }

    /// Every Garmin USB device with a mass-storage interface under `sysfs` (`/sys`), by sysfs name.
    package static func plugged(sysfs: String = "/sys") -> [GarminDisk] {
        let blocks = blockDevices(sysfs: sysfs)
        return garminDevices(sysfs: sysfs).filter(\.massStorage).map { device in
            let real = URL(fileURLWithPath: device.folder).resolvingSymlinksInPath().path + "/"
            return GarminDisk(
                sysfsFolder: device.folder, location: device.location, productID: device.productID,
                blockDevices: blocks.filter { $0.path.hasPrefix(real) }.map { ($0.name, $0.number) })
        }
    }

    /// Every Garmin USB device under `sysfs`, by sysfs name: its folder, location, product id and
    /// whether it has a mass-storage interface (a USB disk) or not (a watch that speaks MTP).
    package static func garminDevices(sysfs: String = "/sys") -> [(folder: String, location: USBDeviceLocation, productID: UInt16, massStorage: Bool)]
    {
        let devices = sysfs + "/bus/usb/devices"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: devices)) ?? []).sorted()
        return names.compactMap { name in
            let folder = devices + "/" + name
            guard !name.contains(":"), read(folder + "/idVendor").flatMap({ UInt16($0, radix: 16) }) == GarminVolume.vendorID,
                let product = read(folder + "/idProduct").flatMap({ UInt16($0, radix: 16) }),
                let bus = read(folder + "/busnum").flatMap({ UInt16($0) }), let address = read(folder + "/devnum").flatMap({ UInt8($0) })
            else { return nil }
            let massStorage = names.contains(where: { $0.hasPrefix(name + ":") && read(devices + "/" + $0 + "/bInterfaceClass") == "08" })
            return (folder, USBDeviceLocation(bus: bus, address: address), product, massStorage)
        }
    }

    /// The mount point of this watch's Garmin volume in `mountinfo` (the text of
    /// `/proc/self/mountinfo`), nil when none of its block devices is mounted with a
    /// `GARMIN/GarminDevice.xml` at its root.
    package func volume(in mountinfo: String) -> URL? {
        let numbers = Set(blockDevices.map(\.number))
        for mount in Self.mounts(mountinfo) where numbers.contains(mount.number) {
            let root = URL(fileURLWithPath: mount.point)
            if GarminVolume.isGarminVolume(root) { return root }
        }
        return nil
    }

    /// The mounts of `mountinfo` (proc(5)): each one's `major:minor` (the third field) and mount
    /// point (the fifth, with `\040`-style octal escapes undone).
    package static func mounts(_ mountinfo: String) -> [(number: String, point: String)] {
        mountinfo.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count > 4 else { return nil }
            return (String(fields[2]), unescape(fields[4]))
        }
    }

    /// Block devices under `sysfs`'s `class/block`: name, `major:minor` and the real path.
    static func blockDevices(sysfs: String) -> [(name: String, number: String, path: String)] {
        let folder = sysfs + "/class/block"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        return names.compactMap { name in
            let link = folder + "/" + name
            guard let number = read(link + "/dev") else { return nil }
            return (name, number, URL(fileURLWithPath: link).resolvingSymlinksInPath().path)
        }
    }

    /// A sysfs attribute's text, without its newline.
    static func read(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8)).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// Undoes mountinfo's octal escapes (`\040` is a space).
    static func unescape(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        var rest = Array(field.utf8)[...]
        while let byte = rest.first {
            if byte == UInt8(ascii: "\\"), rest.count >= 4,
                let value = UInt8(String(decoding: rest.dropFirst().prefix(3), as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                rest = rest.dropFirst(4)
            } else {
                bytes.append(byte)
                rest = rest.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
