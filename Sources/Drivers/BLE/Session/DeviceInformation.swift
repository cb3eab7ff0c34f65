import Foundation
import Model
import Transport

/// Who a Bluetooth LE device is: its address and name, and what its Device Information service
/// says of itself.
package struct BLEDeviceIdentity: Sendable, Equatable {
    package var peer: BLEPeer
    /// Manufacturer Name String (0x2A29).
    package var manufacturer: String?
    /// Model Number String (0x2A24).
    package var model: String?
    /// Serial Number String (0x2A25).
    package var serial: String?

    package init(peer: BLEPeer, manufacturer: String? = nil, model: String? = nil, serial: String? = nil) {
        self.peer = peer
        self.manufacturer = manufacturer
        self.model = model
        self.serial = serial
    }

    /// The serial number the device reports, else its address (a device with a changing private
    /// address then shows up as a new source).
    package var serialOrAddress: String { serial ?? peer.address.description }

    /// The store's source for the records of driver family `family`: the serial number (or the
    /// address), and the manufacturer and model (or the advertised name).
    package func source(family: DeviceFamily) -> DeviceSource {
        let named = [manufacturer, model].compactMap { $0 }.joined(separator: " ")
        return DeviceSource(family: family, serial: serialOrAddress, model: named.isEmpty ? peer.name : named)
    }
}

/// Device Information service 0x180A: the strings that identify a device [Bluetooth SIG GATT XML
/// org.bluetooth.service.device_information; BlueZ src/shared/util.c UUID names]. Each is UTF-8
/// text; some devices pad it with NULs or spaces, which are dropped.
package enum DeviceInformation {
    package static let serviceUUID = BluetoothUUID(0x180A)
    package static let manufacturerName = BluetoothUUID(0x2A29)
    package static let modelNumber = BluetoothUUID(0x2A24)
    package static let serialNumber = BluetoothUUID(0x2A25)

    /// Reads the three strings the device offers; a string the device refuses to give (or a
    /// replayed capture does not hold, when only listening) stays nil and is noted.
    static func identify(_ peer: BLEPeer, database: GATTDatabase, link: BLELink) throws(BLEDriverError) -> BLEDeviceIdentity {
        var identity = BLEDeviceIdentity(peer: peer)
        guard let service = database.service(serviceUUID) else {
            link.note("no Device Information service: the device is identified by its address \(peer.address)")
            return identity
        }
        func text(_ uuid: BluetoothUUID, _ name: String) throws(BLEDriverError) -> String? {
            guard let characteristic = service.characteristic(uuid), characteristic.properties.contains(.read) else { return nil }
            guard let value = try link.readOptional(characteristic, name: name) else { return nil }
            return decode(value.bytes)
        }
        identity.manufacturer = try text(manufacturerName, "Manufacturer Name")
        identity.model = try text(modelNumber, "Model Number")
        identity.serial = try text(serialNumber, "Serial Number")
        if identity.serial == nil {
            link.note("the device reports no serial number: it is identified by its address \(peer.address)")
        }
        return identity
    }

    /// The text of a Device Information string, without padding; nil when empty or not UTF-8.
    package static func decode(_ bytes: [UInt8]) -> String? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: "\u{0}").union(.whitespacesAndNewlines))
        return trimmed.isEmpty ? nil : trimmed
    }
}
