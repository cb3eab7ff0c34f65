import Model
import Transport

/// What a family's devices are recognised by: the one thing the registry compares with what a
/// bus or a file shows (``DeviceEvidence``).
package enum DeviceMatch: Sendable, Equatable {
    /// A USB vendor/product pair (from a live bus or a capture's device descriptors).
    case usb(USBProduct)
    /// A GATT service in a peer's attribute table (live or in a btsnoop capture).
    case gattService(BLEService)
    /// Bytes at an offset at the head of a file (a copied file or folder).
    case fileSignature(FileSignature)

    /// Whether `evidence` shows a device this match names.
    package func matches(_ evidence: DeviceEvidence) -> Bool {
        switch (self, evidence) {
        case (.usb(let product), .usb(let vendorID, let productID)):
            product.vendorID == vendorID && product.productID == productID
        case (.gattService(let service), .gattServices(let found)):
            found.contains(service.uuid)
        case (.fileSignature(let signature), .fileHead(let head)):
            signature.matches(head)
        default:
            false
        }
    }
}

/// What a bus or a file shows of a device, for the registry to pick its family by.
package enum DeviceEvidence: Sendable, Equatable {
    case usb(vendorID: UInt16, productID: UInt16)
    /// The services of a peer's attribute table, as discovery found them.
    case gattServices([BluetoothUUID])
    /// The first bytes of a file (at least as many as the longest signature reaches).
    case fileHead([UInt8])
}

/// Bytes a file of a family holds at a fixed offset (FIT: `.FIT` at bytes 8–11).
package struct FileSignature: Sendable, Equatable {
    package var offset: Int
    package var bytes: [UInt8]
    /// The shortest head of a file that can hold it, when it is not `offset + bytes.count`
    /// (a FIT header is at least 12 bytes, its first byte being its size).
    package var check: (@Sendable ([UInt8]) -> Bool)?

    package init(offset: Int, bytes: [UInt8], check: (@Sendable ([UInt8]) -> Bool)? = nil) {
        self.offset = offset
        self.bytes = bytes
        self.check = check
    }

    /// How many bytes of a file's head the signature needs.
    package var length: Int { offset + bytes.count }

    package func matches(_ head: [UInt8]) -> Bool {
        guard head.count >= length, Array(head[offset..<length]) == bytes else { return false }
        return check?(head) ?? true
    }

    package static func == (lhs: FileSignature, rhs: FileSignature) -> Bool {
        lhs.offset == rhs.offset && lhs.bytes == rhs.bytes
    }
}

/// What a family's driver reads and how, as the registry, `devices` and the docs say it.
package struct DeviceCapabilities: OptionSet, Sendable, Hashable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// Glucose readings (a meter's, a reader's, a CGM's).
    package static let glucose = DeviceCapabilities(rawValue: 1 << 0)
    /// Activity samples or minutes (heart rate, steps, speed, cadence, energy).
    package static let activity = DeviceCapabilities(rawValue: 1 << 1)
    /// Exercise sessions the device logged itself.
    package static let exercise = DeviceCapabilities(rawValue: 1 << 2)
    /// A stored history, read on from the store's cursors (only newer records are asked for or kept).
    package static let storedHistory = DeviceCapabilities(rawValue: 1 << 3)
    /// Values the device sends during the session (notifications), timed by the host clock.
    package static let liveValues = DeviceCapabilities(rawValue: 1 << 4)
    /// Another program's recorded conversation decoded without replaying the driver's own.
    package static let passiveDecode = DeviceCapabilities(rawValue: 1 << 5)

    /// The names, for `devices` and docs: `glucose, stored history`.
    package var names: [String] {
        [
            (Self.glucose, "glucose"), (.activity, "activity"), (.exercise, "exercise"), (.storedHistory, "stored history"),
            (.liveValues, "live values"), (.passiveDecode, "passive decode"),
        ].compactMap { contains($0.0) ? $0.1 : nil }
    }
}

/// The coordinator of a device family: what the family is, without a device. It names the
/// family (kept with every record its driver yields), what its devices are matched by, what it
/// reads, and its summary for README's device tables. The registry (``DriverRegistry``) holds
/// every coordinator and is the one place a driver is picked, for live devices and captures alike.
///
/// Reading a device is the session's job, over the transport protocol of the family's bus:
/// ``USBDeviceDriver`` (a `USBTransport`), ``BLEDeviceDriver`` (one GATT service on a `BLELink`),
/// ``FileDeviceDriver`` (a file's bytes). Every session returns a ``DriverDownload``.
package protocol DeviceCoordinator {
    /// The family name kept with every record its driver yields (e.g. `dexcom`, `ble-hrs`).
    static var family: DeviceFamily { get }
    /// What its devices are recognised by; the registry picks the family whose match a device shows.
    static var matches: [DeviceMatch] { get }
    /// What it reads.
    static var capabilities: DeviceCapabilities { get }
    /// What it reads and how, for README's tables of supported devices.
    static var summary: String { get }
}

extension DeviceCoordinator {
    /// Whether a device showing `evidence` is one of this family's.
    package static func matches(_ evidence: DeviceEvidence) -> Bool {
        matches.contains { $0.matches(evidence) }
    }
}
