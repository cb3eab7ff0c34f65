import Foundation

/// The folder layout of a Garmin watch that is a USB disk (the older watches and bike computers:
/// USB mass storage, vendor 091e): `GARMIN/GarminDevice.xml` says it is one, the activities are
/// in `GARMIN/Activity/` and the all-day monitoring in `GARMIN/Monitor/`, one FIT file each.
/// Names are matched without regard to case, as the watch's FAT volume does.
package enum GarminVolume {
    /// Garmin's USB vendor id (the USB-IF list; every Garmin product uses it).
    package static let vendorID: UInt16 = 0x091E
    /// The watch's own description of itself, at the volume's root.
    package static let deviceFile = ["GARMIN", "GarminDevice.xml"]
    /// The folders whose FIT files are imported, in this order.
    package static let fitFolders = [["GARMIN", "Activity"], ["GARMIN", "Monitor"]]

    /// README's device table.
    package static let devices = "Garmin watches and bike computers that are USB disks"
    package static let summary =
        "the FIT files in `GARMIN/Activity` and `GARMIN/Monitor` of the mounted volume, read-only (no file on the watch is changed), "
        + "stored as FIT files are; `glucobridge import`, the daemon and the import unit udev starts find the volume: see [Garmin watches](docs/devices.md#garmin-watches)"
    /// README's device table: the watches that speak MTP instead.
    package static let mtpDevices = "Garmin watches that speak MTP (the newer ones)"
    package static let mtpSummary =
        "the FIT files in `GARMIN/Activity` and `GARMIN/Monitor`, copied off the watch through libmtp (no file on the watch is "
        + "changed or deleted) and stored as FIT files are; `glucobridge import`, the daemon and the import unit udev starts find "
        + "the watch: see [Garmin watches](docs/devices.md#garmin-watches)"

    /// The path below `root` whose components match `components` without regard to case, nil
    /// when one is missing.
    package static func path(_ components: [String], under root: URL) -> URL? {
        var folder = root
        for component in components {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path),
                let name = names.first(where: { $0.caseInsensitiveCompare(component) == .orderedSame })
            else { return nil }
            folder = folder.appendingPathComponent(name)
        }
        return folder
    }

    /// True when `root` holds `GARMIN/GarminDevice.xml`.
    package static func isGarminVolume(_ root: URL) -> Bool {
        path(deviceFile, under: root) != nil
    }
}
