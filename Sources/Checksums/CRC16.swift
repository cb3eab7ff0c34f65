/// A 16-bit cyclic redundancy check, given by its parameters in the Rocksoft model (Ross
/// Williams, "A Painless Guide to CRC Error Detection Algorithms", 1993), as Greg Cook's
/// "Catalogue of parametrised CRC algorithms" (reveng) names them. The catalogue's entries that
/// devices use are static members named as the catalogue names them, each with its check value
/// (the CRC of the nine ASCII bytes `123456789`) in `CRC16Tests`.
///
/// Eight bytes are folded in per step (slicing-by-8, after Kounavis and Berry, "A Systematic
/// Approach to Building High Performance Software-Based CRC Generators", IEEE ISCC 2005): the
/// register is linear in its input, so the eight bytes' contributions come from eight tables at
/// once instead of one dependent table look-up per byte.
package struct CRC16: Sendable {
    /// The catalogue's name (`CRC-16/XMODEM`), or a description of a variant it does not list.
    package let name: String
    package let polynomial: UInt16
    package let initialValue: UInt16
    /// Whether each input byte is fed least significant bit first.
    package let reflectsInput: Bool
    /// Whether the register is bit-reversed before the final XOR.
    package let reflectsOutput: Bool
    package let finalXOR: UInt16
    /// `tables[k * 256 + x]`: the register's change for byte `x` followed by `k` zero bytes, in
    /// the direction the register shifts (left when input is not reflected, right when it is).
    @usableFromInline let tables: [UInt16]

    package init(
        name: String, polynomial: UInt16, initialValue: UInt16, reflectsInput: Bool, reflectsOutput: Bool, finalXOR: UInt16
    ) {
        self.name = name
        self.polynomial = polynomial
        self.initialValue = initialValue
        self.reflectsInput = reflectsInput
        self.reflectsOutput = reflectsOutput
        self.finalXOR = finalXOR
        var tables = [UInt16](repeating: 0, count: 8 * 256)
        let reflected = polynomial.bitReversed
        for byte in 0..<256 {
            var crc: UInt16
            if reflectsInput {
                crc = UInt16(byte)
                for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ reflected : crc >> 1 }
            } else {
                crc = UInt16(byte) << 8
                for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ polynomial : crc << 1 }
            }
            tables[byte] = crc
        }
        for k in 1..<8 {
            for byte in 0..<256 {
                let previous = tables[(k - 1) * 256 + byte]
                tables[k * 256 + byte] =
                    reflectsInput
                    ? (previous >> 8) ^ tables[Int(previous & 0xFF)]
                    : (previous << 8) ^ tables[Int(previous >> 8)]
            }
        }
        self.tables = tables
    }

    /// The CRC of `bytes`.
    @inlinable
    package func checksum<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
        if let crc = bytes.withContiguousStorageIfAvailable({ checksum(buffer: $0) }) { return crc }
        return Array(bytes).withUnsafeBufferPointer { checksum(buffer: $0) }
    }

    /// `bytes` followed by their CRC, least significant byte first.
    package func appendingLittleEndian(to bytes: [UInt8]) -> [UInt8] {
        let crc = checksum(bytes)
        return bytes + [UInt8(truncatingIfNeeded: crc), UInt8(truncatingIfNeeded: crc >> 8)]
    }

    @usableFromInline
    func checksum(buffer bytes: UnsafeBufferPointer<UInt8>) -> UInt16 {
        let register: UInt16 = tables.withUnsafeBufferPointer { t in
            // A reflected register holds its bits reversed: it starts from the reversed value.
            var crc = reflectsInput ? initialValue.bitReversed : initialValue
            var i = 0
            if reflectsInput {
                while bytes.count - i >= 8 {
                    crc =
                        t[7 * 256 + Int(UInt8(truncatingIfNeeded: crc) ^ bytes[i])]
                        ^ t[6 * 256 + Int(UInt8(truncatingIfNeeded: crc >> 8) ^ bytes[i + 1])]
                        ^ t[5 * 256 + Int(bytes[i + 2])] ^ t[4 * 256 + Int(bytes[i + 3])]
                        ^ t[3 * 256 + Int(bytes[i + 4])] ^ t[2 * 256 + Int(bytes[i + 5])]
                        ^ t[256 + Int(bytes[i + 6])] ^ t[Int(bytes[i + 7])]
                    i += 8
                }
                while i < bytes.count {
                    crc = (crc >> 8) ^ t[Int(UInt8(truncatingIfNeeded: crc) ^ bytes[i])]
                    i += 1
                }
            } else {
                // The register's two bytes meet the first two data bytes; each byte's part is its
                // table entry for the bytes still to follow it.
                while bytes.count - i >= 8 {
                    crc =
                        t[7 * 256 + Int(UInt8(truncatingIfNeeded: crc >> 8) ^ bytes[i])]
                        ^ t[6 * 256 + Int(UInt8(truncatingIfNeeded: crc) ^ bytes[i + 1])]
                        ^ t[5 * 256 + Int(bytes[i + 2])] ^ t[4 * 256 + Int(bytes[i + 3])]
                        ^ t[3 * 256 + Int(bytes[i + 4])] ^ t[2 * 256 + Int(bytes[i + 5])]
                        ^ t[256 + Int(bytes[i + 6])] ^ t[Int(bytes[i + 7])]
                    i += 8
                }
                while i < bytes.count {
                    crc = (crc << 8) ^ t[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ bytes[i])]
                    i += 1
                }
            }
            return crc
        }
        // The register is reversed when exactly one of input and output is reflected.
        return (reflectsInput != reflectsOutput ? register.bitReversed : register) ^ finalXOR
    }
}

extension CRC16 {
    /// CRC-16/XMODEM: Dexcom receivers' packets and database pages. Check value 0x31C3.
    package static let xmodem = CRC16(
        name: "CRC-16/XMODEM", polynomial: 0x1021, initialValue: 0x0000, reflectsInput: false, reflectsOutput: false, finalXOR: 0)
    /// CRC-16/IBM-3740, also called CRC-16/CCITT-FALSE: LifeScan's frames. Check value 0x29B1.
    package static let ibm3740 = CRC16(
        name: "CRC-16/IBM-3740", polynomial: 0x1021, initialValue: 0xFFFF, reflectsInput: false, reflectsOutput: false, finalXOR: 0)
    /// CRC-16/MCRF4XX: the E2E-CRC of the Bluetooth Continuous Glucose Monitoring service. Check
    /// value 0x6F91.
    package static let mcrf4xx = CRC16(
        name: "CRC-16/MCRF4XX", polynomial: 0x1021, initialValue: 0xFFFF, reflectsInput: true, reflectsOutput: true, finalXOR: 0)
    /// CRC-16/ARC: the header and file CRC of Garmin's FIT files. Check value 0xBB3D.
    package static let arc = CRC16(
        name: "CRC-16/ARC", polynomial: 0x8005, initialValue: 0x0000, reflectsInput: true, reflectsOutput: true, finalXOR: 0)
}

extension UInt16 {
    /// The sixteen bits in reverse order.
    @usableFromInline var bitReversed: UInt16 {
        var value = self
        var result: UInt16 = 0
        for _ in 0..<16 {
            result = result << 1 | value & 1
            value >>= 1
        }
        return result
    }
}
