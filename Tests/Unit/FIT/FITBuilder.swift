import Checksums
import Drivers

/// Writes FIT files byte by byte, for the cases the real files lack (compressed timestamps,
/// developer fields, both byte orders in one file, chains). Its CRCs come from `CRC16.arc`, which
/// `FITDecoderTests` checks against the published check value.
struct FITBuilder {
    var records: [UInt8] = []

    /// A definition message; `fields` are (number, size, base type), `developer` (number, size, index).
    mutating func define(
        local: UInt8, global: UInt16, bigEndian: Bool = false, fields: [(UInt8, UInt8, UInt8)], developer: [(UInt8, UInt8, UInt8)] = []
    ) {
        records.append(0x40 | (developer.isEmpty ? 0 : 0x20) | local)
        records += [0, bigEndian ? 1 : 0]
        records += bigEndian ? [UInt8(global >> 8), UInt8(global & 0xFF)] : [UInt8(global & 0xFF), UInt8(global >> 8)]
        records.append(UInt8(fields.count))
        for field in fields { records += [field.0, field.1, field.2] }
        if !developer.isEmpty {
            records.append(UInt8(developer.count))
            for field in developer { records += [field.0, field.1, field.2] }
        }
    }

    /// A data message with a normal header.
    mutating func data(local: UInt8, _ bytes: [UInt8]) {
        records.append(local & 0x0F)
        records += bytes
    }

    /// A data message with a compressed-timestamp header (local type 0–3, time offset 0–31).
    mutating func compressed(local: UInt8, offset: UInt8, _ bytes: [UInt8]) {
        records.append(0x80 | (local & 0x03) << 5 | (offset & 0x1F))
        records += bytes
    }

    /// The whole file: header (12 or 14 bytes, the latter with its CRC), records, file CRC.
    func file(headerSize: Int = 14, headerCRC: Bool = true) -> [UInt8] {
        let size = UInt32(records.count)
        var bytes: [UInt8] = [UInt8(headerSize), 0x20, 0x54, 0x08]
        bytes += [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)]
        bytes += Array(".FIT".utf8)
        if headerSize == 14 {
            let crc = headerCRC ? CRC16.arc.checksum(bytes) : 0
            bytes += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        }
        bytes += records
        let crc = CRC16.arc.checksum(bytes)
        return bytes + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }

    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
    static func be32(_ value: UInt32) -> [UInt8] { le32(value).reversed() }
    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    /// A small activity file: file_id (little-endian), a big-endian record definition with a
    /// developer field, records by full and compressed timestamps, a session.
    static func syntheticActivity() -> [UInt8] {
        var builder = FITBuilder()
        builder.define(local: 0, global: 0, fields: [(0, 1, 0x00), (1, 2, 0x84), (2, 2, 0x84), (3, 4, 0x8C), (4, 4, 0x86)])
        builder.data(local: 0, [4] + le16(1) + le16(2697) + le32(123_456_789) + le32(1_000_000_000))
        // record: timestamp, heart_rate, cadence, distance, speed (big-endian), and 2 developer bytes.
        builder.define(
            local: 1, global: 20, bigEndian: true, fields: [(253, 4, 0x86), (3, 1, 0x02), (4, 1, 0x02), (5, 4, 0x86), (6, 2, 0x84)],
            developer: [(0, 2, 0)])
        builder.data(local: 1, be32(1_000_000_000) + [120, 80] + be32(0) + be16(2500) + [0xAB, 0xCD])
        // The same layout without the timestamp, for compressed headers.
        builder.define(
            local: 2, global: 20, bigEndian: true, fields: [(3, 1, 0x02), (4, 1, 0x02), (5, 4, 0x86), (6, 2, 0x84)], developer: [(0, 2, 0)])
        // 1_000_000_000 & 31 = 0: offsets 30 and then 2 wrap to the next 32 s.
        builder.compressed(local: 2, offset: 30, [125, 81] + be32(7500) + be16(2500) + [0, 0])
        builder.compressed(local: 2, offset: 2, [0xFF, 0xFF] + be32(9000) + be16(0xFFFF) + [0, 0])
        // session: timestamp, start_time, total_elapsed_time, total_distance, total_calories, sport.
        builder.define(local: 3, global: 18, fields: [(253, 4, 0x86), (2, 4, 0x86), (7, 4, 0x86), (9, 4, 0x86), (11, 2, 0x84), (5, 1, 0x00)])
        builder.data(local: 3, le32(1_000_000_034) + le32(1_000_000_000) + le32(34_000) + le32(9000) + le16(3) + [1])
        return builder.file()
    }
}
