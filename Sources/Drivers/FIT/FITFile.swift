import Foundation

/// A decoded FIT file: each file of a chain (FIT files written back to back) with its messages,
/// and what stopped the decoding, if anything. Messages decoded before the damage are kept.
public struct FITFile: Sendable {
    /// How errors name the file (its path, or a name the caller gave).
    package var name: String
    package var parts: [FITPart]
    /// What ended the decoding early or failed a check: a cut file (every whole message kept), a
    /// wrong CRC, a damaged chained header, an unreadable record. Nil for a whole, checked file.
    package var damage: FITError?

    /// Every message of every part, in file order.
    package var messages: [FITMessage] { parts.flatMap(\.messages) }
}

/// One FIT file of a chain: its header, where it starts, and its messages.
package struct FITPart: Sendable {
    /// The byte offset of its header in the whole file.
    package var offset: Int
    package var header: FITHeader
    package var messages: [FITMessage]
    /// Whether the CRC after its records was read and matched.
    package var crcChecked: Bool
    /// The CRC after its records, when it was read and matched.
    package var crc: UInt16?
}

/// A FIT file header (12 or 14 bytes).
package struct FITHeader: Sendable, Equatable {
    package var size: Int
    package var protocolVersion: UInt8
    package var profileVersion: UInt16
    /// The length of the records that follow the header, without the file CRC.
    package var dataSize: Int
    /// The header's CRC; nil for a 12-byte header or a 14-byte one that leaves it 0.
    package var crc: UInt16?

    package init(size: Int, protocolVersion: UInt8, profileVersion: UInt16, dataSize: Int, crc: UInt16?) {
        self.size = size
        self.protocolVersion = protocolVersion
        self.profileVersion = profileVersion
        self.dataSize = dataSize
        self.crc = crc
    }
}

/// A base type of FIT (the FIT protocol's "Base Types" table): its number, size and invalid value.
package enum FITBaseType: UInt8, Sendable, CaseIterable {
    case enumeration = 0x00
    case sint8 = 0x01
    case uint8 = 0x02
    case sint16 = 0x83
    case uint16 = 0x84
    case sint32 = 0x85
    case uint32 = 0x86
    case string = 0x07
    case float32 = 0x88
    case float64 = 0x89
    case uint8z = 0x0A
    case uint16z = 0x8B
    case uint32z = 0x8C
    case byte = 0x0D
    case sint64 = 0x8E
    case uint64 = 0x8F
    case uint64z = 0x90

    /// The type of a definition's base-type byte, by its low five bits (the type number); an
    /// unknown number is read as bytes.
    package init(definition byte: UInt8) {
        self = Self.allCases.first { $0.rawValue & 0x1F == byte & 0x1F } ?? .byte
    }

    /// Bytes per value.
    package var size: Int {
        switch self {
        case .enumeration, .sint8, .uint8, .string, .uint8z, .byte: 1
        case .sint16, .uint16, .uint16z: 2
        case .sint32, .uint32, .float32, .uint32z: 4
        case .float64, .sint64, .uint64, .uint64z: 8
        }
    }

    package var isSigned: Bool { [.sint8, .sint16, .sint32, .sint64].contains(self) }
}

/// One value of a field, as the file holds it (before any scale or offset).
package enum FITValue: Sendable, Equatable {
    /// The base type's invalid value: the field was not set.
    case invalid
    case signed(Int64)
    case unsigned(UInt64)
    case float(Double)
    case text(String)
    case bytes([UInt8])

    /// The value as an integer, when it is a valid integer.
    package var integer: Int64? {
        switch self {
        case .signed(let value): value
        case .unsigned(let value): Int64(exactly: value)
        default: nil
        }
    }

    /// The value as a number, when it is a valid number.
    package var number: Double? {
        switch self {
        case .signed(let value): Double(value)
        case .unsigned(let value): Double(value)
        case .float(let value): value
        default: nil
        }
    }
}

/// One field of a data message: its number in the message's profile, base type and values
/// (one, or several for an array field).
package struct FITField: Sendable, Equatable {
    package var number: UInt8
    package var baseType: FITBaseType
    package var values: [FITValue]
}

/// One data message: its global number (the profile's message number), where it starts, its
/// fields, and the time of a compressed-timestamp header.
package struct FITMessage: Sendable, Equatable {
    package var global: UInt16
    /// The byte offset of its record header in the whole file.
    package var offset: Int
    package var fields: [FITField]
    /// The time a compressed-timestamp record header gave it (FIT seconds); nil for a normal header.
    package var compressedTimestamp: UInt32?
    /// Bytes of developer fields skipped.
    package var developerBytes: Int

    /// The field numbered `number`, when the message has it.
    package func field(_ number: UInt8) -> FITField? { fields.first { $0.number == number } }

    /// The first value of field `number` as an integer; nil when absent or invalid.
    package func integer(_ number: UInt8) -> Int64? { field(number)?.values.first?.integer }

    /// The first value of field `number` divided by `scale` and less `offset` (the profile's
    /// scale and offset); nil when absent or invalid.
    package func scaled(_ number: UInt8, scale: Double = 1, offset: Double = 0) -> Double? {
        field(number)?.values.first?.number.map { $0 / scale - offset }
    }

    /// The message's time in FIT seconds: its `timestamp` field (253), else the compressed header's.
    package var timestamp: UInt32? {
        integer(FITProfile.timestampField).flatMap(UInt32.init(exactly:)) ?? compressedTimestamp
    }
}
