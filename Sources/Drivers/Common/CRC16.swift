/// CRC-16/XMODEM: polynomial 0x1021, initial value 0, no reflection, no final XOR.
/// Check value: "123456789" → 0x31C3.
///
/// Eight bytes are folded in per step (slicing-by-8, after Kounavis and Berry, "A Systematic
/// Approach to Building High Performance Software-Based CRC Generators", IEEE ISCC 2005): the
/// register is linear in its input, so the eight bytes' contributions come from eight tables at
/// once instead of one dependent table look-up per byte.
package enum CRC16XMODEM {
    /// `tables[k * 256 + x]`: the register after byte `x` and then `k` zero bytes, from 0.
    private static let tables: [UInt16] = {
        var tables = [UInt16](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt16(byte) << 8
            for _ in 0..<8 {
                crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
            }
            tables[byte] = crc
        }
        for k in 1..<8 {
            for byte in 0..<256 {
                let previous = tables[(k - 1) * 256 + byte]
                tables[k * 256 + byte] = (previous << 8) ^ tables[Int(previous >> 8)]
            }
        }
        return tables
    }()

    /// The checksum of `bytes`.
    package static func checksum<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
        if let crc = bytes.withContiguousStorageIfAvailable(checksum(buffer:)) { return crc }
        return Array(bytes).withUnsafeBufferPointer(checksum(buffer:))
    }

    private static func checksum(buffer bytes: UnsafeBufferPointer<UInt8>) -> UInt16 {
        tables.withUnsafeBufferPointer { t in
            var crc: UInt16 = 0
            var i = 0
            while bytes.count - i >= 8 {
                // The register's two bytes meet the first two data bytes; each byte's part is
                // its table entry for the bytes still to follow it.
                crc = t[7 * 256 + Int(UInt8(truncatingIfNeeded: crc >> 8) ^ bytes[i])]
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
            return crc
        }
    }
}
