import Transport

/// The drivers glucobridge ships, and the one place a driver is picked for a device, live or in
/// a capture: every list `import`, `replay`, the daemon, `scan`, `devices`, the udev rules
/// (checked by a test) and README's tables of supported devices use is taken from here.
package enum DriverRegistry {
    /// The USB families.
    package static let usb: [any USBDeviceDriver.Type] = [
        DexcomDriver.self, ContourDriver.self, FreeStyleDriver.self, AccuChekDriver.self, VerioDriver.self,
    ]

    /// The Bluetooth LE drivers, in the order a session starts them.
    package static var ble: [any BLEDeviceDriver.Type] {
        [
            HeartRateDriver.self, RunningSpeedCadenceDriver.self, CyclingSpeedCadenceDriver.self, FitnessMachineDriver.self,
            HuamiBandDriver.self, InfiniTimeDriver.self, ContinuousGlucoseDriver.self, GlucoseMeterDriver.self,
        ]
    }

    /// The families read from a file's bytes.
    package static let files: [any FileDeviceDriver.Type] = [FITDriver.self]

    /// Every family's coordinator: USB, then Bluetooth LE, then files.
    package static var families: [any DeviceCoordinator.Type] { usb + ble + files }

    /// Readers people ask about that no driver reads, each with the reason (its `refusal`). They
    /// are not in the udev rules.
    package static let unsupportedUSB = [
        USBProduct(vendorID: 0x22A3, productID: 0x0048, name: "Dexcom G7 receiver", refusal: "its protocol is not publicly documented")
    ]

    /// The families whose matches `evidence` shows, in registry order.
    package static func families(matching evidence: DeviceEvidence) -> [any DeviceCoordinator.Type] {
        families.filter { $0.matches(evidence) }
    }

    /// The family called `name`, case-insensitively.
    package static func family(named name: String) -> (any DeviceCoordinator.Type)? {
        families.first { $0.family.rawValue.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The USB driver for a family name, case-insensitively.
    package static func usbDriver(named name: String) -> (any USBDeviceDriver.Type)? {
        usb.first { $0.family.rawValue.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The USB driver for a device's ids.
    package static func usbDriver(vendorID: UInt16, productID: UInt16) -> (any USBDeviceDriver.Type)? {
        usb.first { $0.matches(.usb(vendorID: vendorID, productID: productID)) }
    }

    /// Every supported USB product, for enumeration and udev rules.
    package static var usbProducts: [USBProduct] { usb.flatMap { $0.products } }

    /// A session's drivers for the services in `database`, in registry order.
    package static func bleDrivers(for database: GATTDatabase) -> [any BLEDeviceDriver] {
        let found = DeviceEvidence.gattServices(database.services.map(\.uuid))
        return ble.filter { $0.matches(found) }.compactMap { driver in
            database.service(driver.service.uuid).map { driver.init(service: $0) }
        }
    }

    /// The file driver for a file whose first bytes are `head`.
    package static func fileDriver(head: [UInt8]) -> (any FileDeviceDriver.Type)? {
        files.first { $0.matches(.fileHead(head)) }
    }

    /// How many bytes of a file's head the file families' signatures need.
    package static var fileHeadLength: Int {
        var longest = 0
        for driver in files {
            for case .fileSignature(let signature) in driver.matches { longest = max(longest, signature.length) }
        }
        return longest
    }
}
