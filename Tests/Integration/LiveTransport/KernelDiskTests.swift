import Foundation
import TestSupport
import TransportSCSI
import XCTest

/// A USB disk's SCSI nodes found in a sysfs tree laid out as the kernel lays out a usb-storage
/// device's (the USB device, its interface, the SCSI host, target and device, then its
/// `scsi_generic` and `block` folders).
final class KernelDiskTests: XCTestCase {
    /// A sysfs tree with a Verio Reflect at bus 1 address 5 whose disk is `sg0` and `sdb`, and a
    /// Dexcom receiver at address 4 without one; `devices` is its `bus/usb/devices` folder.
    func makeSysfs(generic: Bool = true) throws -> (devices: String, dev: String) {
        let sysfs = try Fixtures.temporaryDirectory()
        let meter = sysfs.appendingPathComponent("devices/pci0000:00/usb1/1-1")
        let scsi = meter.appendingPathComponent("1-1:1.0/host2/target2:0:0/2:0:0:0")
        let dexcom = sysfs.appendingPathComponent("devices/pci0000:00/usb1/1-2")
        func write(_ text: String, _ url: URL) throws {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data((text + "\n").utf8).write(to: url)
        }
        for (name, text) in [("idVendor", "2766"), ("idProduct", "000c"), ("busnum", "1"), ("devnum", "5")] {
            try write(text, meter.appendingPathComponent(name))
        }
        for (name, text) in [("idVendor", "22a3"), ("idProduct", "0047"), ("busnum", "1"), ("devnum", "4")] {
            try write(text, dexcom.appendingPathComponent(name))
        }
        try write("8:16", scsi.appendingPathComponent("block/sdb/dev"))
        if generic { try write("21:0", scsi.appendingPathComponent("scsi_generic/sg0/dev")) }
        let devices = sysfs.appendingPathComponent("bus/usb/devices")
        try FileManager.default.createDirectory(at: devices, withIntermediateDirectories: true)
        for (link, target) in [("1-1", meter), ("1-1:1.0", meter.appendingPathComponent("1-1:1.0")), ("1-2", dexcom)] {
            try FileManager.default.createSymbolicLink(at: devices.appendingPathComponent(link), withDestinationURL: target)
        }
        return (devices.path, "/dev")
    }

    func testTheMetersGenericNodeIsFoundFromItsBusAndAddress() throws {
        let tree = try makeSysfs()
        let disk = try XCTUnwrap(KernelDisk.find(bus: 1, address: 5, sysfs: tree.devices, dev: tree.dev))
        XCTAssertEqual(disk.genericNode, "/dev/sg0")
        XCTAssertEqual(disk.blockNode, "/dev/sdb")
        XCTAssertEqual(disk.node, "/dev/sg0")
    }

    func testWithoutTheSgModuleTheBlockNodeIsUsed() throws {
        let tree = try makeSysfs(generic: false)
        let disk = try XCTUnwrap(KernelDisk.find(bus: 1, address: 5, sysfs: tree.devices, dev: tree.dev))
        XCTAssertNil(disk.genericNode)
        XCTAssertEqual(disk.node, "/dev/sdb")
    }

    /// A device without a disk (the receiver), or nothing at the address: nil, after the wait.
    func testADeviceWithoutADiskHasNone() throws {
        let tree = try makeSysfs()
        XCTAssertNil(KernelDisk.find(bus: 1, address: 4, waiting: 0, sysfs: tree.devices, dev: tree.dev))
        XCTAssertNil(KernelDisk.find(bus: 1, address: 9, waiting: 0, sysfs: tree.devices, dev: tree.dev))
        XCTAssertEqual(KernelDisk.find(bus: 1, address: 5, waiting: 0, sysfs: tree.devices, dev: tree.dev)?.node, "/dev/sg0")
    }
}
