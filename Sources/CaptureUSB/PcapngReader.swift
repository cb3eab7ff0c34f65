import Foundation
import Transport

/// pcapng: a sequence of blocks `type, total length, body, total length`, in one or more sections,
/// each section with its own byte order and interfaces.
enum PcapngReader {
    static let sectionHeaderType: UInt32 = 0x0A0D_0D0A
    static let interfaceDescriptionType: UInt32 = 1
    static let obsoletePacketType: UInt32 = 2
    static let simplePacketType: UInt32 = 3
    static let enhancedPacketType: UInt32 = 6

    static let minimumBlockLength = 12
    static let minimumSectionHeaderLength = 28

    static func isPcapng(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && bytes[0] == 0x0A && bytes[1] == 0x0D && bytes[2] == 0x0D && bytes[3] == 0x0A
    }

    /// How an interface counts time: units per second as a power of ten or of two, plus an offset.
    private struct Interface {
        enum Resolution {
            case decimal(unitsPerSecond: UInt64)
            case binary(shift: UInt64)
        }

        var linkType: UInt32
        var resolution: Resolution = .decimal(unitsPerSecond: 1_000_000)
        var offsetSeconds: Int64 = 0

        func date(units: UInt64) -> Date {
            let seconds: UInt64
            let fraction: Double
            switch resolution {
            case .decimal(let perSecond):
                seconds = units / perSecond
                fraction = Double(units % perSecond) / Double(perSecond)
            case .binary(let shift):
                seconds = units >> shift
                fraction = Double(units & ((1 << shift) - 1)) / Double(sign: .plus, exponent: Int(shift), significand: 1)
            }
            return Date(timeIntervalSince1970: Double(seconds) + Double(offsetSeconds) + fraction)
        }
    }

    static func parse(_ bytes: [UInt8], name: String) throws(CaptureError) -> USBCapture {
        var assembler = TransferAssembler(file: name)
        var order = ByteOrder.little
        var interfaces: [Interface] = []
        var linkTypesSeen: [UInt32] = []
        var usbLinkType: UInt32?
        var offset = 0
        var blockNumber = 0
        var packetNumber = 0

        while offset < bytes.count {
            blockNumber += 1
            let remaining = bytes.count - offset
            func malformed(_ problem: String) -> CaptureError {
                .malformedBlock(file: name, block: blockNumber, offset: offset, problem: problem)
            }
            guard remaining >= minimumBlockLength else {
                throw .truncated(
                    file: name, part: .block(blockNumber), offset: offset, needed: minimumBlockLength,
                    remaining: remaining)
            }
            // The section header type reads the same in both byte orders; its body says which applies.
            let isSectionHeader = bytes.u32(at: offset) == sectionHeaderType
            if isSectionHeader {
                switch bytes.u32(at: offset + 8, .little) {
                case 0x1A2B_3C4D: order = .little
                case 0x4D3C_2B1A: order = .big
                default:
                    let found = Hex.encode(Array(bytes[(offset + 8)..<(offset + 12)]), separator: "")
                    throw malformed("section header byte-order magic is \(found), expected 1A2B3C4D or 4D3C2B1A")
                }
                interfaces = []
            }
            let type = bytes.u32(at: offset, order)
            let length = Int(bytes.u32(at: offset + 4, order))
            let minimum = isSectionHeader ? minimumSectionHeaderLength : minimumBlockLength
            guard length % 4 == 0 else { throw malformed("total length \(length) is not a multiple of 4") }
            guard length >= minimum else {
                throw malformed("total length \(length) is smaller than the \(minimum)-byte minimum")
            }
            guard length <= remaining else {
                throw .truncated(
                    file: name, part: .block(blockNumber), offset: offset, needed: length, remaining: remaining)
            }
            let trailing = Int(bytes.u32(at: offset + length - 4, order))
            guard trailing == length else {
                throw malformed("trailing total length \(trailing) differs from the leading \(length)")
            }
            let body = offset + 8
            let bodyEnd = offset + length - 4

            switch type {
            case interfaceDescriptionType:
                guard bodyEnd - body >= 8 else { throw malformed("interface description body is shorter than 8 bytes") }
                var interface = Interface(linkType: UInt32(bytes.u16(at: body, order)))
                try readOptions(bytes, from: body + 8, to: bodyEnd, order: order, into: &interface, malformed)
                interfaces.append(interface)
                linkTypesSeen.append(interface.linkType)
                if usbLinkType == nil, TransferAssembler.isUSB(interface.linkType) { usbLinkType = interface.linkType }

            case enhancedPacketType, obsoletePacketType:
                guard bodyEnd - body >= 20 else { throw malformed("packet block body is shorter than 20 bytes") }
                let interfaceID =
                    type == enhancedPacketType ? Int(bytes.u32(at: body, order)) : Int(bytes.u16(at: body, order))
                guard interfaceID < interfaces.count else {
                    throw malformed("refers to interface \(interfaceID) but the section describes \(interfaces.count)")
                }
                let units = UInt64(bytes.u32(at: body + 4, order)) << 32 | UInt64(bytes.u32(at: body + 8, order))
                let captured = Int(bytes.u32(at: body + 12, order))
                let original = Int(bytes.u32(at: body + 16, order))
                let start = body + 20
                guard captured <= bodyEnd - start else {
                    throw malformed("captured length \(captured) exceeds the block's \(bodyEnd - start) bytes of packet data")
                }
                packetNumber += 1
                let interface = interfaces[interfaceID]
                if TransferAssembler.isUSB(interface.linkType) {
                    let record = CapturedPacket(
                        number: packetNumber, offset: offset, start: start, capturedLength: captured,
                        originalLength: original, timestamp: interface.date(units: units))
                    try assembler.add(record, linkType: interface.linkType, bytes: bytes)
                }

            case simplePacketType:
                guard bodyEnd - body >= 4 else { throw malformed("simple packet block body is shorter than 4 bytes") }
                guard let interface = interfaces.first else {
                    throw malformed("simple packet block comes before any interface description")
                }
                let original = Int(bytes.u32(at: body, order))
                let start = body + 4
                packetNumber += 1
                if TransferAssembler.isUSB(interface.linkType) {
                    let record = CapturedPacket(
                        number: packetNumber, offset: offset, start: start,
                        capturedLength: min(original, bodyEnd - start), originalLength: original, timestamp: nil)
                    try assembler.add(record, linkType: interface.linkType, bytes: bytes)
                }

            default:
                break
            }
            offset += length
        }

        guard let usbLinkType else { throw .noUSBInterface(file: name, linkTypes: linkTypesSeen) }
        return USBCapture(format: .pcapng(linkType: usbLinkType), transfers: assembler.transfers)
    }

    /// Reads the interface options this module uses: `if_tsresol` (9) and `if_tsoffset` (14).
    private static func readOptions(
        _ bytes: [UInt8], from start: Int, to end: Int, order: ByteOrder, into interface: inout Interface,
        _ malformed: (String) -> CaptureError
    ) throws(CaptureError) {
        var position = start
        while end - position >= 4 {
            let code = bytes.u16(at: position, order)
            let length = Int(bytes.u16(at: position + 2, order))
            let value = position + 4
            if code == 0 { return }
            guard length <= end - value else {
                throw malformed("option \(code) of \(length) bytes runs past the end of the block")
            }
            switch code {
            case 9 where length >= 1:
                let raw = bytes[value]
                let exponent = UInt64(raw & 0x7F)
                if raw & 0x80 != 0 {
                    guard exponent < 64 else { throw malformed("if_tsresol 2^-\(exponent) is finer than 2^-63") }
                    interface.resolution = .binary(shift: exponent)
                } else {
                    guard exponent <= 19 else { throw malformed("if_tsresol 10^-\(exponent) is finer than 10^-19") }
                    var perSecond: UInt64 = 1
                    for _ in 0..<exponent { perSecond *= 10 }
                    interface.resolution = .decimal(unitsPerSecond: perSecond)
                }
            case 14 where length >= 8:
                interface.offsetSeconds = bytes.i64(at: value, order)
            default:
                break
            }
            position = value + (length + 3) & ~3
        }
    }
}
