import Foundation

extension BluetoothUUID {
    /// GATT attribute types [BlueZ lib/bluetooth/uuid.h].
    public static let primaryService = BluetoothUUID(0x2800)
    public static let secondaryService = BluetoothUUID(0x2801)
    public static let includedService = BluetoothUUID(0x2802)
    public static let characteristicDeclaration = BluetoothUUID(0x2803)
    public static let characteristicExtendedProperties = BluetoothUUID(0x2900)
    public static let characteristicUserDescription = BluetoothUUID(0x2901)
    public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
    public static let serverCharacteristicConfiguration = BluetoothUUID(0x2903)
    public static let characteristicPresentationFormat = BluetoothUUID(0x2904)
}

/// The device a GATT client talks to.
public struct BLEPeer: Sendable, Equatable, CustomStringConvertible {
    public var address: BluetoothAddress
    public var addressType: LEAddressType
    /// The advertised name, when known.
    public var name: String?

    public init(address: BluetoothAddress, addressType: LEAddressType, name: String? = nil) {
        self.address = address
        self.addressType = addressType
        self.name = name
    }

    /// `SynBand (C0:11:22:33:44:55, random)`.
    public var description: String {
        let where_ = "\(address), \(addressType)"
        return name.map { "\($0) (\(where_))" } ?? where_
    }
}

/// Why a Bluetooth LE device as typed (`ADDRESS[,public|random]`) could not be read.
public enum BLEPeerSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing was given.
    case empty
    /// The part before the comma is not six hex pairs.
    case notAnAddress(String, in: String)
    /// The part after the comma is not `public` or `random`.
    case unknownAddressType(String, in: String)
    /// More than one comma.
    case tooManyParts(String)

    public var description: String {
        let form = "ADDRESS or ADDRESS,public or ADDRESS,random, e.g. C0:11:22:33:44:55,random"
        return switch self {
        case .empty: "no Bluetooth device given: write \(form)"
        case let .notAnAddress(address, text): "\"\(text)\": \"\(address)\" is not a Bluetooth address (six hex pairs: C0:11:22:33:44:55)"
        case let .unknownAddressType(type, text): "\"\(text)\": the address type is public or random, not \"\(type)\""
        case .tooManyParts(let text): "\"\(text)\" has more than one comma: write \(form)"
        }
    }
}

extension BLEPeer {
    /// The one syntax every command, the daemon and its unit file use for a Bluetooth LE device:
    /// `ADDRESS[,TYPE]`, where TYPE is `public` or `random` as BlueZ names address types (the
    /// `AddressType` property, doc/org.bluez.Device.rst in github.com/bluez/bluez) and defaults to
    /// random, which most sensors use. Either case; spaces around the parts are ignored.
    public init(parsing text: String) throws(BLEPeerSyntaxError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw .empty }
        let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count <= 2 else { throw .tooManyParts(text) }
        guard let address = BluetoothAddress(parts[0]) else { throw .notAnAddress(parts[0], in: text) }
        let type = try parts.count == 2 ? Self.addressType(parts[1], in: text) : .random
        self.init(address: address, addressType: type)
    }

    /// `public` or `random` (either case) as an address type.
    public static func addressType(_ word: String, in text: String) throws(BLEPeerSyntaxError) -> LEAddressType {
        switch word.lowercased() {
        case "public": .public
        case "random": .random
        default: throw .unknownAddressType(word, in: text)
        }
    }

    /// `C0:11:22:33:44:55,random`: the device as `init(parsing:)` reads it (an identity address
    /// is written by its kind, public or random).
    public var argument: String { "\(address),\(addressType.isRandom ? "random" : "public")" }
}

/// The characteristic properties byte [BlueZ src/shared/att-types.h].
public struct GATTCharacteristicProperties: OptionSet, Sendable, Hashable {
    public var rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let broadcast = Self(rawValue: 0x01)
    public static let read = Self(rawValue: 0x02)
    public static let writeWithoutResponse = Self(rawValue: 0x04)
    public static let write = Self(rawValue: 0x08)
    public static let notify = Self(rawValue: 0x10)
    public static let indicate = Self(rawValue: 0x20)
    public static let signedWrite = Self(rawValue: 0x40)
    public static let extendedProperties = Self(rawValue: 0x80)
}

/// A descriptor found by Find Information.
public struct GATTDescriptor: Sendable, Equatable {
    public var uuid: BluetoothUUID
    public var handle: UInt16

    public init(uuid: BluetoothUUID, handle: UInt16) {
        self.uuid = uuid
        self.handle = handle
    }
}

/// A characteristic: its declaration, value handle, properties, the last handle it owns, and its
/// descriptors once discovered.
public struct GATTCharacteristic: Sendable, Equatable {
    public var uuid: BluetoothUUID
    public var declarationHandle: UInt16
    public var valueHandle: UInt16
    public var properties: GATTCharacteristicProperties
    /// The last handle of the characteristic: the next declaration − 1, or the service's end.
    public var endHandle: UInt16
    public var descriptors: [GATTDescriptor]

    public init(
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
    public var cccd: GATTDescriptor? { descriptors.first { $0.uuid == .clientCharacteristicConfiguration } }
}

/// A service: its UUID, handle range and, once discovered, its characteristics.
public struct GATTService: Sendable, Equatable {
    public var uuid: BluetoothUUID
    public var startHandle: UInt16
    public var endHandle: UInt16
    public var isPrimary: Bool
    public var characteristics: [GATTCharacteristic]

    public init(uuid: BluetoothUUID, startHandle: UInt16, endHandle: UInt16, isPrimary: Bool = true, characteristics: [GATTCharacteristic] = []) {
        self.uuid = uuid
        self.startHandle = startHandle
        self.endHandle = endHandle
        self.isPrimary = isPrimary
        self.characteristics = characteristics
    }

    public func characteristic(_ uuid: BluetoothUUID) -> GATTCharacteristic? {
        characteristics.first { $0.uuid == uuid }
    }
}

/// A device's attribute table as discovery found it.
public struct GATTDatabase: Sendable, Equatable {
    public var services: [GATTService]

    public init(services: [GATTService]) {
        self.services = services
    }

    public func service(_ uuid: BluetoothUUID) -> GATTService? {
        services.first { $0.uuid == uuid }
    }

    /// The first characteristic with `uuid` (in the service `service`, when given).
    public func characteristic(_ uuid: BluetoothUUID, in service: BluetoothUUID? = nil) -> GATTCharacteristic? {
        for candidate in services where service == nil || candidate.uuid == service {
            if let found = candidate.characteristic(uuid) { return found }
        }
        return nil
    }

    /// The characteristic whose value lives at `handle` (how notifications are matched to UUIDs).
    public func characteristic(valueHandle handle: UInt16) -> GATTCharacteristic? {
        for service in services {
            if let found = service.characteristics.first(where: { $0.valueHandle == handle }) { return found }
        }
        return nil
    }

    public var characteristics: [GATTCharacteristic] { services.flatMap(\.characteristics) }
}

/// A value read from the device and the host clock when it arrived.
public struct GATTValue: Sendable, Equatable {
    public var bytes: [UInt8]
    public var hostTime: Date

    public init(bytes: [UInt8], hostTime: Date) {
        self.bytes = bytes
        self.hostTime = hostTime
    }
}

/// A notification or indication from the device.
public struct GATTNotification: Sendable, Equatable {
    /// The characteristic value handle it carries.
    public var handle: UInt16
    public var value: [UInt8]
    /// An indication (already confirmed by the client) rather than a notification.
    public var isIndication: Bool
    /// The host clock when it arrived (the capture's timestamp in a replay).
    public var hostTime: Date

    public init(handle: UInt16, value: [UInt8], isIndication: Bool, hostTime: Date) {
        self.handle = handle
        self.value = value
        self.isIndication = isIndication
        self.hostTime = hostTime
    }
}

/// What a CCCD write asks for [BlueZ src/shared/gatt-client.c].
public enum GATTSubscription: Sendable, Equatable {
    case notifications
    case indications
    case off

    /// The two CCCD bytes: 01 00, 02 00 or 00 00.
    public var cccdValue: [UInt8] {
        switch self {
        case .notifications: [0x01, 0x00]
        case .indications: [0x02, 0x00]
        case .off: [0x00, 0x00]
        }
    }
}
