import Foundation

extension BluetoothUUID {
    /// GATT attribute types [BlueZ lib/bluetooth/uuid.h].
    package static let primaryService = BluetoothUUID(0x2800)
    package static let secondaryService = BluetoothUUID(0x2801)
    package static let includedService = BluetoothUUID(0x2802)
    package static let characteristicDeclaration = BluetoothUUID(0x2803)
    package static let characteristicExtendedProperties = BluetoothUUID(0x2900)
    package static let characteristicUserDescription = BluetoothUUID(0x2901)
    package static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
    package static let serverCharacteristicConfiguration = BluetoothUUID(0x2903)
    package static let characteristicPresentationFormat = BluetoothUUID(0x2904)
}

/// The device a GATT client talks to.
package struct BLEPeer: Sendable, Equatable, CustomStringConvertible {
    package var address: BluetoothAddress
    package var addressType: LEAddressType
    /// The advertised name, when known.
    package var name: String?

    package init(address: BluetoothAddress, addressType: LEAddressType, name: String? = nil) {
        self.address = address
        self.addressType = addressType
        self.name = name
    }

    /// `SynBand (C0:11:22:33:44:55, random)`.
    package var description: String {
        let location = "\(address), \(addressType)"
        return name.map { "\($0) (\(location))" } ?? location
    }
}

/// Why a Bluetooth LE device as typed (`ADDRESS[,public|random]`) could not be read.
package enum BLEPeerSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing was given.
    case empty
    /// The part before the comma is not six hex pairs.
    case notAnAddress(String, in: String)
    /// The part after the comma is not `public` or `random`.
    case unknownAddressType(String, in: String)
    /// More than one comma.
    case tooManyParts(String)

    package var description: String {
        let form = "ADDRESS or ADDRESS,public or ADDRESS,random, e.g. C0:11:22:33:44:55,random"
        return switch self {
        case .empty: "no Bluetooth device given: write \(form)"
        case .notAnAddress(let address, let text): "\"\(text)\": \"\(address)\" is not a Bluetooth address (six hex pairs: C0:11:22:33:44:55)"
        case .unknownAddressType(let type, let text): "\"\(text)\": the address type is public or random, not \"\(type)\""
        case .tooManyParts(let text): "\"\(text)\" has more than one comma: write \(form)"
        }
    }
}

extension BLEPeer {
    /// The one syntax every command, the daemon and its unit file use for a Bluetooth LE device:
    /// `ADDRESS[,TYPE]`, where TYPE is `public` or `random` as BlueZ names address types (the
    /// `AddressType` property, doc/org.bluez.Device.rst in github.com/bluez/bluez) and defaults to
    /// random, which most sensors use. Either case; spaces around the parts are ignored.
    package init(parsing text: String) throws(BLEPeerSyntaxError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw .empty }
        let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count <= 2 else { throw .tooManyParts(text) }
        guard let address = BluetoothAddress(parts[0]) else { throw .notAnAddress(parts[0], in: text) }
        let type = try parts.count == 2 ? Self.addressType(parts[1], in: text) : .random
        self.init(address: address, addressType: type)
    }

    /// `public` or `random` (either case) as an address type.
    package static func addressType(_ word: String, in text: String) throws(BLEPeerSyntaxError) -> LEAddressType {
        switch word.lowercased() {
        case "public": .public
        case "random": .random
        default: throw .unknownAddressType(word, in: text)
        }
    }

    /// `C0:11:22:33:44:55,random`: the device as `init(parsing:)` reads it (an identity address
    /// is written by its kind, public or random).
    package var argument: String { "\(address),\(addressType.isRandom ? "random" : "public")" }
}

/// The characteristic properties byte [BlueZ src/shared/att-types.h].
package struct GATTCharacteristicProperties: OptionSet, Sendable, Hashable {
    package var rawValue: UInt8

    package init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    package static let broadcast = Self(rawValue: 0x01)
    package static let read = Self(rawValue: 0x02)
    package static let writeWithoutResponse = Self(rawValue: 0x04)
    package static let write = Self(rawValue: 0x08)
    package static let notify = Self(rawValue: 0x10)
    package static let indicate = Self(rawValue: 0x20)
    package static let signedWrite = Self(rawValue: 0x40)
    package static let extendedProperties = Self(rawValue: 0x80)
}

/// A descriptor found by Find Information.
package struct GATTDescriptor: Sendable, Equatable {
    package var uuid: BluetoothUUID
    package var handle: UInt16

    package init(uuid: BluetoothUUID, handle: UInt16) {
        self.uuid = uuid
        self.handle = handle
    }
}

/// A characteristic: its declaration, value handle, properties, the last handle it owns, and its
/// descriptors once discovered.
package struct GATTCharacteristic: Sendable, Equatable {
    package var uuid: BluetoothUUID
    package var declarationHandle: UInt16
    package var valueHandle: UInt16
    package var properties: GATTCharacteristicProperties
    /// The last handle of the characteristic: the next declaration − 1, or the service's end.
    package var endHandle: UInt16
    package var descriptors: [GATTDescriptor]

    package init(
        uuid: BluetoothUUID, declarationHandle: UInt16, valueHandle: UInt16, properties: GATTCharacteristicProperties,
        endHandle: UInt16, descriptors: [GATTDescriptor] = []
    ) {
        self.uuid = uuid
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
        self.properties = properties
        self.endHandle = endHandle
        self.descriptors = descriptors
    }

    /// The Client Characteristic Configuration descriptor, once descriptors are discovered.
    package var cccd: GATTDescriptor? { descriptors.first { $0.uuid == .clientCharacteristicConfiguration } }
}

/// A service: its UUID, handle range and, once discovered, its characteristics.
package struct GATTService: Sendable, Equatable {
    package var uuid: BluetoothUUID
    package var startHandle: UInt16
    package var endHandle: UInt16
    package var isPrimary: Bool
    package var characteristics: [GATTCharacteristic]

    package init(uuid: BluetoothUUID, startHandle: UInt16, endHandle: UInt16, isPrimary: Bool = true, characteristics: [GATTCharacteristic] = []) {
        self.uuid = uuid
        self.startHandle = startHandle
        self.endHandle = endHandle
        self.isPrimary = isPrimary
        self.characteristics = characteristics
    }

    package func characteristic(_ uuid: BluetoothUUID) -> GATTCharacteristic? {
        characteristics.first { $0.uuid == uuid }
    }
}

/// A device's attribute table as discovery found it.
package struct GATTDatabase: Sendable, Equatable {
    package var services: [GATTService]

    package init(services: [GATTService]) {
        self.services = services
    }

    package func service(_ uuid: BluetoothUUID) -> GATTService? {
        services.first { $0.uuid == uuid }
    }

    /// The first characteristic with `uuid` (in the service `service`, when given).
    package func characteristic(_ uuid: BluetoothUUID, in service: BluetoothUUID? = nil) -> GATTCharacteristic? {
        for candidate in services where service == nil || candidate.uuid == service {
            if let found = candidate.characteristic(uuid) { return found }
        }
        return nil
    }

    /// The characteristic whose value lives at `handle` (how notifications are matched to UUIDs).
    package func characteristic(valueHandle handle: UInt16) -> GATTCharacteristic? {
        for service in services {
            if let found = service.characteristics.first(where: { $0.valueHandle == handle }) { return found }
        }
        return nil
    }

    package var characteristics: [GATTCharacteristic] { services.flatMap(\.characteristics) }
}

/// A value read from the device and the host clock when it arrived.
package struct GATTValue: Sendable, Equatable {
    package var bytes: [UInt8]
    package var hostTime: Date

    package init(bytes: [UInt8], hostTime: Date) {
        self.bytes = bytes
        self.hostTime = hostTime
    }
}

/// A notification or indication from the device.
package struct GATTNotification: Sendable, Equatable {
    /// The characteristic value handle it carries.
    package var handle: UInt16
    package var value: [UInt8]
    /// An indication (already confirmed by the client) rather than a notification.
    package var isIndication: Bool
    /// The host clock when it arrived (the capture's timestamp in a replay).
    package var hostTime: Date

    package init(handle: UInt16, value: [UInt8], isIndication: Bool, hostTime: Date) {
        self.handle = handle
        self.value = value
        self.isIndication = isIndication
        self.hostTime = hostTime
    }
}

/// What a CCCD write asks for [BlueZ src/shared/gatt-client.c].
package enum GATTSubscription: Sendable, Equatable {
    case notifications
    case indications
    case off

    /// The two CCCD bytes: 01 00, 02 00 or 00 00.
    package var cccdValue: [UInt8] {
        switch self {
        case .notifications: [0x01, 0x00]
        case .indications: [0x02, 0x00]
        case .off: [0x00, 0x00]
        }
    }
}
