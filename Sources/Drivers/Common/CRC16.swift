/// CRC-16/XMODEM: polynomial 0x1021, initial value 0, no reflection, no final XOR.
/// Check value: "123456789" → 0x31C3.
public enum CRC16XMODEM {
    private static let table: [UInt16] = (0..<256).map { byte -> UInt16 in
        var crc = UInt16(byte) << 8
        for _ in 0..<8 {
            crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
        }
        return crc
    }

    /// The checksum of `bytes`.
    public static func checksum<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc = (crc << 8) ^ table[Int(UInt8(crc >> 8) ^ byte)]
        }
        return crc
    }
}
