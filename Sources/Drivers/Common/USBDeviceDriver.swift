import Model
import Pipeline
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

/// The driver of a family of USB devices: its coordinator (matched by its products' ids) and
/// its session. It talks only to a `USBTransport`, so the same code reads hardware and replays
/// captures.
package protocol USBDeviceDriver: DeviceCoordinator, Sendable {
    /// The family's error, naming what went wrong and where.
    associatedtype SessionError: DriverError
    /// The products it matches, read or refused.
    static var products: [USBProduct] { get }
    /// Holds the device's conversation and returns what it read. Once the device has said who it
    /// is, the context's cursors give the highest record index already stored per stream for it;
    /// those streams are read only as far back as needed to reach it. Progress goes to the
    /// context's reporter.
    static func download(over transport: any USBTransport, context: DownloadContext) throws(SessionError) -> GlucoseDownload
    /// Decodes another program's recorded conversation with the device: every recorded answer is
    /// taken as the reply to the request recorded before it, whatever order and batching that
    /// program used.
    static func decode(recorded device: RecordedUSBDevice) throws(SessionError) -> GlucoseDownload
    /// As ``decode(recorded:)``, but what the store already holds (the context's cursors, asked
    /// once the device has said who it is) need not be decoded again: a driver whose protocol says where
    /// its records are may skip those at or below the cursors.
    static func decode(recorded device: RecordedUSBDevice, context: DownloadContext) throws(SessionError) -> GlucoseDownload
}

extension USBDeviceDriver {
    /// Its products' ids.
    package static var matches: [DeviceMatch] { products.map(DeviceMatch.usb) }

    /// The contract's session: one device read over `transport` into the one download type.
    /// (Called on `any USBDeviceDriver.Type`: the family's error reaches the caller as a
    /// ``SessionFailure``, opened here rather than thrown through the existential.)
    package static func session(over transport: any USBTransport, context: DownloadContext) throws(SessionFailure) -> DriverDownload {
        do {
            return DriverDownload(family: family, glucose: try download(over: transport, context: context))
        } catch {
            throw SessionFailure(error)
        }
    }

    /// The contract's passive session: another program's recorded conversation decoded into the
    /// one download type.
    package static func session(recorded device: RecordedUSBDevice, context: DownloadContext) throws(SessionFailure) -> DriverDownload {
        do {
            return DriverDownload(family: family, glucose: try decode(recorded: device, context: context))
        } catch {
            throw SessionFailure(error)
        }
    }

    /// Decodes everything: for protocols that cannot tell which records are stored before
    /// decoding them.
    package static func decode(recorded device: RecordedUSBDevice, context: DownloadContext) throws(SessionError) -> GlucoseDownload {
        try decode(recorded: device)
    }

    /// Whether the driver handles this vendor/product pair.
    package static func supports(vendorID: UInt16, productID: UInt16) -> Bool {
        matches(.usb(vendorID: vendorID, productID: productID))
    }
}
