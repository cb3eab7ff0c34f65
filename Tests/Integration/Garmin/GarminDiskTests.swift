import Drivers
import Foundation
import GRDB
import ImportTestSupport
import Importer
import LiveImport
import Store
import TestSupport
import Transport
import XCTest

/// A Garmin watch as a USB disk: its volume's FIT files imported read-only and idempotently, the
/// watch found in a sysfs tree and its volume in a mount table.
final class GarminDiskTests: XCTestCase {
    /// A volume laid out as a watch's: `GARMIN/GarminDevice.xml`, two rides and a run in
    /// `GARMIN/Activity`, the monitoring file in `GARMIN/Monitor`, and a file that is not FIT;
    /// every file and folder read-only, as the import must never need more.
    func makeVolume() throws -> URL {
        let root = try Fixtures.temporaryDirectory().appendingPathComponent("GARMIN WATCH")
        let garmin = root.appendingPathComponent("GARMIN")
        for folder in ["Activity", "Monitor"] {
            try FileManager.default.createDirectory(at: garmin.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Data("<Device><Model><PartNumber>006-B2530-00</PartNumber></Model></Device>\n".utf8)
            .write(to: garmin.appendingPathComponent("GarminDevice.xml"))
        for (fixture, folder) in [("Activity.fit", "Activity"), ("garmin-edge-820-bike.fit", "Activity"), ("MonitoringFile.fit", "Monitor")] {
            try FileManager.default.copyItem(
                at: Fixtures.url("fit/\(fixture)"), to: garmin.appendingPathComponent("\(folder)/\(fixture.uppercased())"))
        }
        try Data("not a FIT file".utf8).write(to: garmin.appendingPathComponent("Activity/README.TXT"))
        try readOnly(root)
        return root
    }

    func readOnly(_ folder: URL) throws {
        let items = FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []
        for item in items.reversed() {
            let url = folder.appendingPathComponent(item)
            try FileManager.default.setAttributes([.posixPermissions: Importer.isFolder(url) ? 0o555 : 0o444], ofItemAtPath: url.path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
    }

    /// Every file's bytes and modification time, by path.
    func snapshot(_ folder: URL) throws -> [String: [String]] {
        var seen: [String: [String]] = [:]
        for item in FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? [] {
            let url = folder.appendingPathComponent(item)
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            let bytes = Importer.isFolder(url) ? "" : try Data(contentsOf: url).base64EncodedString()
            seen[item] = [bytes, "\(attributes[.modificationDate] ?? "")", "\(attributes[.posixPermissions] ?? "")"]
        }
        return seen
    }

    func rows(_ store: SharedStore) throws -> [String] {
        try store.database.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT 'exercise ' || s.serial || ' ' || e.device_record_key || ' ' || e.time || ' ' || e.name || ' ' || e.duration_seconds
                    FROM exercise e JOIN source s ON s.id = e.source_id
                    UNION ALL
                    SELECT 'minute ' || s.serial || ' ' || m.minute || ' ' || coalesce(m.heart_rate_bpm, '-') || ' ' || coalesce(m.step_cadence_spm, '-')
                        || ' ' || coalesce(m.distance_m, '-') || ' ' || coalesce(m.energy_kj, '-')
                    FROM activity_minute m JOIN source s ON s.id = m.source_id
                    ORDER BY 1
                    """)
        }
    }

    /// The watch's three FIT files (the README beside them skipped) stored as replays of the
    /// same files store them; a second import adds nothing; no file on the volume changes.
    func testVolumeImportEqualsReplayAndAddsNothingTheSecondTime() throws {
        let root = try makeVolume()
        let before = try snapshot(root)
        let files = try Importer.garminFITFiles(under: root)
        XCTAssertEqual(
            files.map { $0.pathComponents.suffix(2).joined(separator: "/") },
            ["Activity/ACTIVITY.FIT", "Activity/GARMIN-EDGE-820-BIKE.FIT", "Monitor/MONITORINGFILE.FIT"])

        let (store, _) = try makeStore(zone: "UTC")
        let first = try Importer(store: store).importGarminVolume(root, origin: "usb 091e:2530 on bus 1 address 3", context: ImportContext())
        XCTAssertEqual(first.devices.map { $0.fit?.fileType }, ["activity", "activity", "monitoring_b"])
        XCTAssertGreaterThan(first.devices.reduce(0) { $0 + ($1.activity?.summary.minutesAdded ?? 0) }, 0)
        XCTAssertEqual(first.devices.reduce(0) { $0 + ($1.activity?.summary.sessionsAdded ?? 0) }, 2)

        let (replayed, _) = try makeStore(zone: "UTC")
        for file in files { _ = try Importer(store: replayed).run(.capture(file)) }
        let stored = try rows(store)
        XCTAssertEqual(stored, try rows(replayed))
        XCTAssertTrue(stored.contains { $0.hasPrefix("exercise 3932942223/activity/2017-06-12T16:10:15Z session:0 2017-06-12 16:10:15.000 Cycling") })

        let again = try Importer(store: store).importGarminVolume(root, origin: "usb 091e:2530 on bus 1 address 3", context: ImportContext())
        XCTAssertEqual(again.devices.map { $0.activity?.summary.minutesAdded }, [0, 0, 0])
        XCTAssertEqual(again.devices.map { $0.activity?.summary.sessionsAdded }, [0, 0, 0])
        XCTAssertEqual(try rows(store), stored)
        XCTAssertEqual(try snapshot(root), before)
        let report = ImportReport(again, store: store).text
        XCTAssertTrue(report.contains("device 3 of 3:"), report)
    }

    func testAFolderWithoutGarminDeviceXMLIsRefusedByName() throws {
        let root = try Fixtures.temporaryDirectory()
        try FileManager.default.createDirectory(at: root.appendingPathComponent("GARMIN/Activity"), withIntermediateDirectories: true)
        let (store, _) = try makeStore(zone: "UTC")
        XCTAssertThrowsError(try Importer(store: store).importGarminVolume(root, origin: "usb 091e:2530", context: ImportContext())) { error in
            XCTAssertEqual("\(error)", "\(root.path) is not a Garmin watch's volume: it holds no GARMIN/GarminDevice.xml")
        }
    }

    /// A watch whose Activity and Monitor folders hold no FIT file is refused, naming them.
    func testAWatchWithoutFITFilesSaysWhereItLooked() throws {
        let root = try Fixtures.temporaryDirectory()
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Garmin/ACTIVITY"), withIntermediateDirectories: true)
        try Data("<Device/>".utf8).write(to: root.appendingPathComponent("Garmin/garmindevice.xml"))
        let (store, _) = try makeStore(zone: "UTC")
        XCTAssertThrowsError(try Importer(store: store).importGarminVolume(root, origin: "usb 091e:2530", context: ImportContext())) { error in
            XCTAssertTrue("\(error)".contains("(GARMIN/Activity, GARMIN/Monitor)"), "\(error)")
        }
    }

    /// A sysfs tree as the kernel lays out a Garmin disk (the USB device, its mass-storage
    /// interface, the SCSI disk and its partition under it) beside a Dexcom: the watch is found
    /// with its bus location and both block devices, and its volume at the mount point
    /// mountinfo gives for the partition's numbers (with the space escaped).
    func testTheWatchIsFoundInSysfsAndItsVolumeInMountinfo() throws {
        let sysfs = try Fixtures.temporaryDirectory()
        let volume = try makeVolume()
        let device = sysfs.appendingPathComponent("devices/pci0000:00/usb1/1-1")
        let disk = device.appendingPathComponent("1-1:1.0/host0/target0:0:0/0:0:0:0/block/sda")
        let dexcom = sysfs.appendingPathComponent("devices/pci0000:00/usb1/1-2")
        func write(_ text: String, _ url: URL) throws {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data((text + "\n").utf8).write(to: url)
        }
        for (name, text) in [("idVendor", "091e"), ("idProduct", "2530"), ("busnum", "1"), ("devnum", "3")] {
            try write(text, device.appendingPathComponent(name))
        }
        try write("08", device.appendingPathComponent("1-1:1.0/bInterfaceClass"))
        try write("8:0", disk.appendingPathComponent("dev"))
        try write("8:1", disk.appendingPathComponent("sda1/dev"))
        for (name, text) in [("idVendor", "22a3"), ("idProduct", "0047"), ("busnum", "1"), ("devnum", "4")] {
            try write(text, dexcom.appendingPathComponent(name))
        }
        // A newer watch that speaks MTP: an Image-class interface, no mass storage.
        let mtp = sysfs.appendingPathComponent("devices/pci0000:00/usb1/1-3")
        for (name, text) in [("idVendor", "091e"), ("idProduct", "4b48"), ("busnum", "1"), ("devnum", "5")] {
            try write(text, mtp.appendingPathComponent(name))
        }
        try write("06", mtp.appendingPathComponent("1-3:1.0/bInterfaceClass"))
        let links = FileManager.default
        for folder in ["bus/usb/devices", "class/block"] {
            try links.createDirectory(at: sysfs.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        for (link, target) in [
            ("bus/usb/devices/1-1", device), ("bus/usb/devices/1-1:1.0", device.appendingPathComponent("1-1:1.0")),
            ("bus/usb/devices/1-2", dexcom), ("bus/usb/devices/1-3", mtp), ("bus/usb/devices/1-3:1.0", mtp.appendingPathComponent("1-3:1.0")),
            ("class/block/sda", disk), ("class/block/sda1", disk.appendingPathComponent("sda1")),
        ] {
            try links.createSymbolicLink(at: sysfs.appendingPathComponent(link), withDestinationURL: target)
        }

        let found = GarminDisk.plugged(sysfs: sysfs.path)
        XCTAssertEqual(found.count, 1)
        let watch = try XCTUnwrap(found.first)
        XCTAssertEqual(watch.location, USBDeviceLocation(bus: 1, address: 3))
        XCTAssertEqual(watch.origin, "usb 091e:2530 on bus 1 address 3")
        XCTAssertEqual(watch.blockDevices.map(\.name), ["sda", "sda1"])
        XCTAssertEqual(watch.blockDevices.map(\.number), ["8:0", "8:1"])
        XCTAssertEqual(GarminMTP.plugged(sysfs: sysfs.path), [USBDeviceLocation(bus: 1, address: 5)], "the MTP watch, not the disk")

        let escaped = volume.path.replacingOccurrences(of: " ", with: "\\040")
        let mountinfo = """
            22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw
            41 22 8:1 / \(escaped) ro,nosuid,nodev,noexec,relatime shared:30 - vfat /dev/sda1 ro,fmask=0022
            """
        XCTAssertEqual(GarminDisk.mounts(mountinfo).map(\.point), ["/", volume.path])
        XCTAssertEqual(watch.volume(in: mountinfo)?.path, volume.path)
        XCTAssertNil(watch.volume(in: "22 1 8:2 / \(escaped) ro - vfat /dev/sda2 ro"), "another disk's partition mounted there")

        // Not mounted: the error names the watch and its block devices.
        let table = sysfs.appendingPathComponent("mountinfo")
        try Data(mountinfo.split(separator: "\n")[0].utf8).write(to: table)
        XCTAssertThrowsError(try GarminDisk.volume(at: nil, waiting: 0, sysfs: sysfs.path, table: try MountTable(path: table.path))) { error in
            XCTAssertEqual(
                "\(error)",
                "the Garmin watch usb 091e:2530 on bus 1 address 3 is a USB disk, but none of /dev/sda, /dev/sda1 is mounted "
                    + "with a GARMIN/GarminDevice.xml: mount it read-only (see docs/operating.md)")
        }
        try Data(mountinfo.utf8).write(to: table)
        let reached = try XCTUnwrap(
            try GarminDisk.volume(at: USBDeviceLocation(bus: 1, address: 3), waiting: 0, sysfs: sysfs.path, table: try MountTable(path: table.path)))
        XCTAssertEqual(reached.root.path, volume.path)
        XCTAssertNil(
            try GarminDisk.volume(at: USBDeviceLocation(bus: 1, address: 4), waiting: 0, sysfs: sysfs.path, table: MountTable(path: table.path)))
    }
}
