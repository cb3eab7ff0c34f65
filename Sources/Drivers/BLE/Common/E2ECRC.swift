import Checksums

/// The CGMS E2E-CRC: CRC-CCITT x¹⁶+x¹²+x⁵+1 with seed 0xFFFF, bits processed least significant
/// first, no final XOR (the CRC-16/MCRF4XX parameters), over every byte of the record or value
/// before the CRC, size byte included; it travels little-endian.
///
/// Sources: Bluetooth SIG GATT XML cgm_measurement, E2E-CRC field (oesmith/gatt-xml);
/// NordicSemiconductor Android-BLE-Common-Library CRC16.MCRF4XX. The CRC itself is
/// `CRC16.mcrf4xx`.
package enum E2ECRC {
    /// The CRC of `bytes`.
    package static func checksum<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
        CRC16.mcrf4xx.checksum(bytes)
    }

    /// `bytes` followed by their CRC, little-endian: what a sensor sends.
    package static func appending(to bytes: [UInt8]) -> [UInt8] {
        CRC16.mcrf4xx.appendingLittleEndian(to: bytes)
    }
}

/// Whether a CGMS value carries an E2E-CRC, and what it was.
package enum E2ECRCCheck: Sendable, Equatable {
    /// The value has no CRC field.
    case absent
    /// The value's CRC matched its bytes.
    case valid(UInt16)
}

extension GATTValueReader {
    /// Reads the trailing E2E-CRC of the bytes from `start` up to here, when `present`, and checks it.
    mutating func e2eCRC(present: Bool) throws(BLEValueError) -> E2ECRCCheck {
        guard present else { return .absent }
        let covered = bytes[start..<offset]
        let at = offset
        let carried = try u16("E2E-CRC")
        let computed = E2ECRC.checksum(covered)
        guard carried == computed else {
            throw .crcMismatch(characteristic: characteristic, offset: at, carried: carried, computed: computed)
        }
        return .valid(carried)
    }

    /// Whether the value being read ends in an E2E-CRC: `supported` is what the CGM Feature said
    /// (nil when not read yet, in which case the length decides); `bare` is the value's length
    /// without a CRC, from `start`.
    func crcPresent(supported: Bool?, bareLength bare: Int) throws(BLEValueError) -> Bool {
        let length = end - start
        switch supported {
        case .some(true):
            if length == bare { throw .missingCRC(characteristic: characteristic, offset: start + bare) }
            guard length == bare + 2 else {
                throw .unexpectedLength(characteristic: characteristic, offset: start, expected: [bare + 2], found: length)
            }
            return true
        case .some(false):
            guard length == bare else {
                throw .unexpectedLength(characteristic: characteristic, offset: start, expected: [bare], found: length)
            }
            return false
        case .none:
            guard length == bare || length == bare + 2 else {
                throw .unexpectedLength(
                    characteristic: characteristic, offset: start, expected: [bare, bare + 2], found: length)
            }
            return length == bare + 2
        }
    }
}
