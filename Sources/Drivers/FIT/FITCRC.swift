/// FIT's CRC-16, as the FIT protocol document gives it (developer.garmin.com/fit/protocol/,
/// "CRC"): a 16-entry table folded in one nibble at a time, low nibble first, from 0. It is
/// CRC-16/ARC (polynomial 0x8005 reflected, initial value 0, no final XOR); check value:
/// "123456789" → 0xBB3D.
package enum FITCRC {
    private static let table: [UInt16] = [
        0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
        0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
    ]

    /// `crc` with `byte` folded in.
    package static func update(_ crc: UInt16, _ byte: UInt8) -> UInt16 {
        var crc = crc
        var step = table[Int(crc & 0xF)]
        crc = (crc >> 4) & 0x0FFF
        crc ^= step ^ table[Int(byte & 0xF)]
        step = table[Int(crc & 0xF)]
        crc = (crc >> 4) & 0x0FFF
        return crc ^ step ^ table[Int(byte >> 4)]
    }

    /// The checksum of `bytes`, from 0.
    package static func checksum<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
        bytes.reduce(0, update)
    }
}
