import Drivers
import Foundation
import ImportTestSupport
import TestSupport
import XCTest

/// README's tables of supported devices and Bluetooth services are the driver registry's: a
/// driver, product or summary changed without README (or README edited by hand) fails here, and
/// the message holds the text to paste.
final class DeviceTableTests: XCTestCase {
    func testReadmeTablesAreRenderedFromTheRegistry() throws {
        let readme = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for (name, markdown) in DeviceTable.tables {
            let section = try XCTUnwrap(
                DeviceTable.section(name, in: readme),
                "README.md lacks the lines \(DeviceTable.begin(name)) and \(DeviceTable.end(name))")
            XCTAssertEqual(
                section, markdown,
                """
                README's \(name) table differs from the driver registry; replace the lines between its markers with:
                \(markdown)
                """)
        }
    }

    /// What the tables hold, from the drivers: every product id, refused and unsupported readers
    /// with their reasons, and every Bluetooth service with its family.
    func testTablesNameEveryProductAndService() {
        let devices = DeviceTable.supportedDevices.split(separator: "\n").map(String.init)
        XCTAssertEqual(
            devices.count, 2 + DriverRegistry.usb.count + 1 + 1 + 1 + 1 + 1,
            "header, one row per driver, the G7, Bluetooth, FIT files, Garmin disks, Garmin MTP watches")
        XCTAssertEqual(devices[2], "| Dexcom G4/G5/G6 receiver | 22a3:0047 | \(DexcomDriver.summary) |")
        XCTAssertTrue(devices[3].hasPrefix("| Contour USB, Contour Next USB, Contour Next, "), devices[3])
        XCTAssertTrue(devices[3].contains("| 1a79:6002, 7410, 7350, 7800, 7900, 7950 |"), devices[3])
        XCTAssertTrue(devices[4].contains("| 1a61:3650, 3670, 3850, 3460, 3450, 3950, 3960 |"), devices[4])
        XCTAssertTrue(devices[4].contains("FreeStyle Libre 2, FreeStyle Libre 3"), devices[4])
        XCTAssertTrue(devices.contains { $0.hasPrefix("| Accu-Chek Guide, ") && $0.contains("| 173a:21d5, 21cf, 21d6, 21d7, 21d8, 21cc |") })
        XCTAssertEqual(devices[devices.count - 5], "| Dexcom G7 receiver | 22a3:0048 | not supported: its protocol is not publicly documented |")
        XCTAssertTrue(devices[devices.count - 4].contains("Heart Rate, Running Speed and Cadence"), devices[devices.count - 4])
        XCTAssertEqual(devices[devices.count - 3], "| \(FITActivityFile.devices) |  | \(FITActivityFile.summary) |")
        XCTAssertEqual(devices[devices.count - 2], "| \(GarminVolume.devices) | 091e (mass storage) | \(GarminVolume.summary) |")
        XCTAssertEqual(devices[devices.count - 1], "| \(GarminVolume.mtpDevices) | 091e (MTP) | \(GarminVolume.mtpSummary) |")

        let services = DeviceTable.bluetoothServices.split(separator: "\n").map(String.init)
        XCTAssertEqual(services.count, 2 + DriverRegistry.ble.count)
        XCTAssertEqual(services[2], "| Heart Rate (0x180D) | `ble-hrs` | \(HeartRateDriver.summary) |")
        XCTAssertTrue(services.last!.hasPrefix("| Glucose (0x1808) | `ble-glucose` | meter (strip) readings"), services.last!)
    }

    func testSectionNeedsBothMarkers() {
        let name = "supported devices"
        XCTAssertEqual(DeviceTable.section(name, in: "a\n\(DeviceTable.begin(name))\nx\ny\n\(DeviceTable.end(name))\nb"), "x\ny")
        XCTAssertNil(DeviceTable.section(name, in: "a\n\(DeviceTable.begin(name))\nx\n"))
        XCTAssertNil(DeviceTable.section(name, in: "x\n\(DeviceTable.end(name))\n"))
    }
}
