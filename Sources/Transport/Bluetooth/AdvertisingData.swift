/// One advertising report from an LE scan: who advertised, how loud, and what.
public struct AdvertisingReport: Sendable, Equatable {
    /// The report's event type (legacy: 0 ADV_IND … 4 SCAN_RSP; extended: a bit field).
    package var eventType: UInt16
    /// Whether it came in an LE Extended Advertising Report.
    package var isExtended: Bool
    /// The raw address type byte: 0 public, 1 random, 2/3 resolved identity, 0xFF anonymous.
    package var addressType: UInt8
    package var address: BluetoothAddress
    /// Received signal strength in dBm; 127 means not available.
    package var rssi: Int8
    /// The advertising data (AD structures).
    package var data: [UInt8]

    package init(eventType: UInt16, isExtended: Bool, addressType: UInt8, address: BluetoothAddress, rssi: Int8, data: [UInt8]) {
        self.eventType = eventType
        self.isExtended = isExtended
        self.addressType = addressType
        self.address = address
        self.rssi = rssi
        self.data = data
    }

    /// The address type as a connection needs it, when it is one of the four defined kinds.
    package var leAddressType: LEAddressType? { LEAddressType(rawValue: addressType) }

    package var advertisingData: AdvertisingData { AdvertisingData(data) }
}

/// Advertising data: a sequence of (length, type, data) structures ending at a zero length or the
/// end of the bytes [BlueZ tools/hcitool.c `eir_parse_name`, `read_flags`].
package struct AdvertisingData: Sendable, Equatable {
    /// One AD structure: its type and data.
    package struct Structure: Sendable, Equatable {
        package var type: UInt8
        package var data: [UInt8]
    }

    /// The structures, in order.
    package var structures: [Structure]
    /// Whether the last structure claimed more bytes than remained (it is left out).
    package var isCutShort: Bool

    package static let flagsType: UInt8 = 0x01
    package static let incomplete16Type: UInt8 = 0x02
    package static let complete16Type: UInt8 = 0x03
    package static let incomplete32Type: UInt8 = 0x04
    package static let complete32Type: UInt8 = 0x05
    package static let incomplete128Type: UInt8 = 0x06
    package static let complete128Type: UInt8 = 0x07
    package static let shortNameType: UInt8 = 0x08
    package static let completeNameType: UInt8 = 0x09
    package static let txPowerType: UInt8 = 0x0A
    package static let manufacturerType: UInt8 = 0xFF

    package init(_ bytes: [UInt8]) {
        var structures: [Structure] = []
        var at = 0
        var cut = false
        while at < bytes.count {
            let length = Int(bytes[at])
            if length == 0 { break }
            guard bytes.count - at - 1 >= length else {
                cut = true
                break
            }
            structures.append(Structure(type: bytes[at + 1], data: Array(bytes[(at + 2)..<(at + 1 + length)])))
            at += 1 + length
        }
        self.structures = structures
        isCutShort = cut
    }

    /// The complete local name, else the shortened one (UTF-8).
    package var localName: String? {
        let named = structures.first { $0.type == Self.completeNameType } ?? structures.first { $0.type == Self.shortNameType }
        return named.map { String(decoding: $0.data, as: UTF8.self) }
    }

    /// The flags byte (LE General Discoverable 0x02, BR/EDR not supported 0x04, …).
    package var flags: UInt8? { structures.first { $0.type == Self.flagsType }?.data.first }

    /// Every advertised service UUID (16-, 32- and 128-bit lists, complete or not), in order.
    package var serviceUUIDs: [BluetoothUUID] {
        var uuids: [BluetoothUUID] = []
        for structure in structures {
            let width: Int
            switch structure.type {
            case Self.incomplete16Type, Self.complete16Type: width = 2
            case Self.incomplete32Type, Self.complete32Type: width = 4
            case Self.incomplete128Type, Self.complete128Type: width = 16
            default: continue
            }
            let data = structure.data
            for start in stride(from: 0, through: data.count - width, by: width) {
                if let uuid = BluetoothUUID(littleEndian: data[start..<(start + width)]) { uuids.append(uuid) }
            }
        }
        return uuids
    }

    /// The advertised transmit power in dBm.
    package var txPower: Int8? {
        structures.first { $0.type == Self.txPowerType }?.data.first.map { Int8(bitPattern: $0) }
    }

    /// Manufacturer-specific data: company identifier, then the vendor's bytes.
    package var manufacturerData: (company: UInt16, data: [UInt8])? {
        guard let entry = structures.first(where: { $0.type == Self.manufacturerType }), entry.data.count >= 2 else {
            return nil
        }
        return (UInt16(entry.data[0]) | UInt16(entry.data[1]) << 8, Array(entry.data[2...]))
    }
}
