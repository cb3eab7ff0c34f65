import Transport

/// What is wrong with a GATT characteristic value. Every case names the characteristic and the
/// byte offset within the value where decoding stopped, so a log line points at the exact byte.
public enum BLEValueError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The value ends before a field its flags announce.
    case shortPayload(characteristic: BLECharacteristic, field: String, offset: Int, needed: Int, available: Int)
    /// The flags set bits the specification reserves, so the layout of what follows is unknown.
    case reservedFlags(characteristic: BLECharacteristic, offset: Int, flags: UInt32, reservedMask: UInt32)
    /// The E2E-CRC carried in the value differs from the CRC of the bytes before it.
    case crcMismatch(characteristic: BLECharacteristic, offset: Int, carried: UInt16, computed: UInt16)
    /// The CGM Feature says E2E-CRC is supported but the value carries none.
    case missingCRC(characteristic: BLECharacteristic, offset: Int)
    /// The value (or one record of it) is longer or shorter than its flags allow.
    case unexpectedLength(characteristic: BLECharacteristic, offset: Int, expected: [Int], found: Int)
    /// A field holds a value the specification does not allow.
    case invalidField(characteristic: BLECharacteristic, field: String, offset: Int, reason: String)

    /// The characteristic whose value was rejected.
    package var characteristic: BLECharacteristic {
        switch self {
        case .shortPayload(let characteristic, _, _, _, _), .reservedFlags(let characteristic, _, _, _),
            .crcMismatch(let characteristic, _, _, _), .missingCRC(let characteristic, _),
            .unexpectedLength(let characteristic, _, _, _), .invalidField(let characteristic, _, _, _):
            characteristic
        }
    }

    /// The byte offset within the value where the problem is.
    package var offset: Int {
        switch self {
        case .shortPayload(_, _, let offset, _, _), .reservedFlags(_, let offset, _, _), .crcMismatch(_, let offset, _, _),
            .missingCRC(_, let offset), .unexpectedLength(_, let offset, _, _), .invalidField(_, _, let offset, _):
            offset
        }
    }

    public var description: String {
        let place = "\(characteristic) at byte \(offset)"
        switch self {
        case .shortPayload(_, let field, _, let needed, let available):
            return "\(place): the value ends before its \(field) (\(needed) byte\(needed == 1 ? "" : "s") needed, "
                + "\(available) left)"
        case .reservedFlags(_, _, let flags, let mask):
            return "\(place): flags 0x\(String(flags, radix: 16, uppercase: true)) set reserved bits "
                + "0x\(String(flags & mask, radix: 16, uppercase: true)), so the fields that follow cannot be located"
        case .crcMismatch(_, _, let carried, let computed):
            return "\(place): E2E-CRC is \(Hex.literal(carried)) but the bytes before it give \(Hex.literal(computed))"
        case .missingCRC:
            return "\(place): the sensor's CGM Feature announces E2E-CRC but this value carries none"
        case .unexpectedLength(_, _, let expected, let found):
            let allowed = expected.map(String.init).joined(separator: " or ")
            return "\(place): \(found) bytes where the flags allow \(allowed)"
        case .invalidField(_, let field, _, let reason):
            return "\(place): \(field) \(reason)"
        }
    }
}

/// A bounds-checked little-endian cursor over one characteristic value; every read names the
/// field it is for, so a short value fails with `BLEValueError.shortPayload` naming it.
struct GATTValueReader {
    let bytes: [UInt8]
    let characteristic: BLECharacteristic
    private(set) var offset: Int
    /// Where the value (or the record being read) starts.
    let start: Int
    /// Reads stop here (a CGM record ends before the next one).
    let end: Int

    init(_ bytes: [UInt8], _ characteristic: BLECharacteristic, from start: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.characteristic = characteristic
        offset = start
        self.start = start
        self.end = end ?? bytes.count
    }

    var remaining: Int { end - offset }

    private mutating func take(_ count: Int, _ field: String) throws(BLEValueError) -> Int {
        guard remaining >= count else {
            throw .shortPayload(
                characteristic: characteristic, field: field, offset: offset, needed: count, available: max(0, remaining))
        }
        defer { offset += count }
        return offset
    }

    mutating func u8(_ field: String) throws(BLEValueError) -> UInt8 {
        bytes[try take(1, field)]
    }

    mutating func u16(_ field: String) throws(BLEValueError) -> UInt16 {
        let at = try take(2, field)
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    mutating func s16(_ field: String) throws(BLEValueError) -> Int16 {
        Int16(bitPattern: try u16(field))
    }

    mutating func u24(_ field: String) throws(BLEValueError) -> UInt32 {
        let at = try take(3, field)
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
    }

    mutating func u32(_ field: String) throws(BLEValueError) -> UInt32 {
        let at = try take(4, field)
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }

    mutating func sfloat(_ field: String) throws(BLEValueError) -> MedicalFloat {
        MedicalFloat(sfloat: try u16(field))
    }

    mutating func raw(_ count: Int, _ field: String) throws(BLEValueError) -> [UInt8] {
        let at = try take(count, field)
        return Array(bytes[at..<(at + count)])
    }

    /// Fails unless every byte up to `end` was read; `allowed` are the lengths (from `start`) the
    /// flags permit, for the message.
    func expectEnd(allowed: [Int]) throws(BLEValueError) {
        guard offset == end else {
            throw .unexpectedLength(characteristic: characteristic, offset: offset, expected: allowed, found: end - start)
        }
    }

    /// Fails when `flags` sets any bit of `reservedMask`; `offset` is where the flags field starts.
    func rejectReserved(_ flags: UInt32, mask reservedMask: UInt32, at offset: Int = 0) throws(BLEValueError) {
        guard flags & reservedMask == 0 else {
            throw .reservedFlags(characteristic: characteristic, offset: offset, flags: flags, reservedMask: reservedMask)
        }
    }
}
