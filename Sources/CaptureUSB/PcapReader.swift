import Foundation
import Transport

/// Classic pcap: a 24-byte global header, then 16-byte record headers each followed by its bytes.
enum PcapReader {
    static let globalHeaderLength = 24
    static let recordHeaderLength = 16

    /// The byte order and timestamp divisor a pcap magic announces, or nil if it is not pcap.
    static func magic(_ bytes: [UInt8]) -> (order: ByteOrder, ticksPerSecond: Double)? {
        guard bytes.count >= 4 else { return nil }
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0xD4, 0xC3, 0xB2, 0xA1): return (.little, 1e6)
        case (0x4D, 0x3C, 0xB2, 0xA1): return (.little, 1e9)
        case (0xA1, 0xB2, 0xC3, 0xD4): return (.big, 1e6)
        case (0xA1, 0xB2, 0x3C, 0x4D): return (.big, 1e9)
        default: return nil
        }
    }

    static func parse(_ bytes: [UInt8], name: String) throws(CaptureError) -> USBCapture {
        guard let (order, ticksPerSecond) = magic(bytes) else {
            throw .unknownFormat(file: name, firstBytes: Array(bytes.prefix(16)))
        }
        guard bytes.count >= globalHeaderLength else {
            throw .truncated(
                file: name, part: .fileHeader, offset: 0, needed: globalHeaderLength, remaining: bytes.count)
        }
        // The low 16 bits are the link type; the upper bits carry FCS information.
        let linkType = bytes.u32(at: 20, order) & 0xFFFF
        guard TransferAssembler.isUSB(linkType) else { throw .unsupportedLinkType(file: name, linkType: linkType) }

        var assembler = TransferAssembler(file: name)
        var offset = globalHeaderLength
        var number = 0
        while offset < bytes.count {
            number += 1
            guard bytes.count - offset >= recordHeaderLength else {
                throw .truncated(
                    file: name, part: .recordHeader(packet: number), offset: offset, needed: recordHeaderLength,
                    remaining: bytes.count - offset)
            }
            let seconds = bytes.u32(at: offset, order)
            let fraction = bytes.u32(at: offset + 4, order)
            let captured = Int(bytes.u32(at: offset + 8, order))
            let original = Int(bytes.u32(at: offset + 12, order))
            let start = offset + recordHeaderLength
            guard bytes.count - start >= captured else {
                throw .truncated(
                    file: name, part: .recordData(packet: number), offset: offset, needed: captured,
                    remaining: bytes.count - start)
            }
            let record = CapturedPacket(
                number: number, offset: offset, start: start, capturedLength: captured, originalLength: original,
                timestamp: Date(timeIntervalSince1970: Double(seconds) + Double(fraction) / ticksPerSecond))
            try assembler.add(record, linkType: linkType, bytes: bytes)
            offset = start + captured
        }
        return USBCapture(format: .pcap(linkType: linkType), transfers: assembler.transfers)
    }
}
