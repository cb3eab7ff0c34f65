import Model
import Transport

/// A USB product a driver supports.
package struct USBProduct: Sendable, Equatable {
    package var vendorID: UInt16
    package var productID: UInt16
    package var name: String
    /// Why a product the driver recognises is refused rather than read (its traffic is
    /// encrypted, …); nil for a product it reads.
    package var refusal: String?

    package init(vendorID: UInt16, productID: UInt16, name: String, refusal: String? = nil) {
        self.vendorID = vendorID
        self.productID = productID
        self.name = name
        self.refusal = refusal
    }

    /// The name, and why it is refused when it is: `FreeStyle Libre 2 (refused: …)`.
    package var label: String { refusal.map { "\(name) (refused: \($0))" } ?? name }
}

/// A driver for one family of USB devices. It talks only to a `USBTransport`, so the same code
/// reads hardware and replays captures.
package protocol USBDeviceDriver: Sendable {
    /// The family name kept with every record it yields (e.g. `dexcom`).
    static var family: String { get }
    static var products: [USBProduct] { get }
    /// What the driver reads and how, for README's table of supported devices.
    static var summary: String { get }
    /// Holds the device's conversation and returns what it read. Once the device has said who it
    /// is, the context's cursors give the highest record index already stored per stream for it;
    /// those streams are read only as far back as needed to reach it. Progress goes to the
    /// context's reporter.
    static func download(over transport: any USBTransport, context: DownloadContext) throws -> DeviceDownload
    /// Decodes another program's recorded conversation with the device: every recorded answer is
    /// taken as the reply to the request recorded before it, whatever order and batching that
    /// program used.
    static func decode(recorded device: RecordedUSBDevice) throws -> DeviceDownload
    /// As ``decode(recorded:)``, but what the store already holds (the context's cursors, asked
    /// once the device has said who it is) need not be decoded again: a driver whose protocol says where
    /// its records are may skip those at or below the cursors.
    static func decode(recorded device: RecordedUSBDevice, context: DownloadContext) throws -> DeviceDownload
}

extension USBDeviceDriver {
    /// Decodes everything: for protocols that cannot tell which records are stored before
    /// decoding them.
    package static func decode(recorded device: RecordedUSBDevice, context: DownloadContext) throws -> DeviceDownload {
        try decode(recorded: device)
    }

    /// Whether the driver handles this vendor/product pair.
    package static func supports(vendorID: UInt16, productID: UInt16) -> Bool {
        products.contains { $0.vendorID == vendorID && $0.productID == productID }
    }
}

/// The drivers glucobridge ships: the one list that `import`, the daemon, `scan`, `devices`, the
/// udev rules (checked by a test) and README's table of supported devices are taken from.
package enum DriverRegistry {
    package static let usb: [any USBDeviceDriver.Type] = [
        DexcomDriver.self, ContourDriver.self, FreeStyleDriver.self, AccuChekDriver.self, VerioDriver.self,
    ]

    /// Readers people ask about that no driver reads, each with the reason (its `refusal`). They
    /// are not in the udev rules.
    package static let unsupportedUSB = [
        USBProduct(vendorID: 0x22A3, productID: 0x0048, name: "Dexcom G7 receiver", refusal: "its protocol is not publicly documented")
    ]

    /// The driver for a family name, case-insensitively.
    package static func usbDriver(named name: String) -> (any USBDeviceDriver.Type)? {
        usb.first { $0.family.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The driver for a device's ids.
    package static func usbDriver(vendorID: UInt16, productID: UInt16) -> (any USBDeviceDriver.Type)? {
        usb.first { $0.supports(vendorID: vendorID, productID: productID) }
    }

    /// Every supported product, for enumeration and udev rules.
    package static var usbProducts: [USBProduct] { usb.flatMap { $0.products } }
}
