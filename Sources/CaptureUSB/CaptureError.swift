import Foundation
import Transport

/// The part of a capture file that a `CaptureError.truncated` refers to.
public enum CapturePart: Sendable, Equatable {
    /// The classic pcap global header (24 bytes at byte 0).
    case fileHeader
    /// The 16-byte record header of a pcap packet (1-based packet number).
    case recordHeader(packet: Int)
    /// The captured bytes of a pcap packet (1-based packet number).
    case recordData(packet: Int)
    /// A pcapng block (1-based block number).
    case block(Int)
}

/// How truncation messages name each part.
extension CapturePart {
    package var span: TruncatedSpan {
        switch self {
        case .fileHeader: .fileHeader(format: "pcap")
        case .recordHeader(let packet): .recordHeader(unit: "packet", number: packet)
        case .recordData(let packet): .recordBody(unit: "packet", number: packet, claiming: "bytes")
        case .block(let block): .recordBody(unit: "block", number: block, claiming: "bytes")
        }
    }
}

/// Why a capture could not be read or written. Every case names the file and, where there is one,
/// the record and byte offset; `description` is one line a person can act on.
public enum CaptureError: Error, Equatable, CustomStringConvertible {
    /// The file could not be opened or read; `reason` is the operating system's explanation.
    case unreadable(file: String, reason: String)
    /// The file has no bytes at all.
    case empty(file: String)
    /// The content is neither pcap, pcapng nor a transcript; `firstBytes` are its first bytes.
    case unknownFormat(file: String, firstBytes: [UInt8])
    /// A header or record claims more bytes than the file has left.
    case truncated(file: String, part: CapturePart, offset: Int, needed: Int, remaining: Int)
    /// A pcapng block is not well formed (length not a multiple of 4, too small, trailing length
    /// differing, a field pointing outside the block, …).
    case malformedBlock(file: String, block: Int, offset: Int, problem: String)
    /// A classic pcap file whose link type is not a USB one (220, 189 or 249).
    case unsupportedLinkType(file: String, linkType: UInt32)
    /// A pcapng file none of whose interfaces carries USB packets; `linkTypes` are the ones found.
    case noUSBInterface(file: String, linkTypes: [UInt32])
    /// A packet too short for its usbmon or USBPcap header.
    case badPacketHeader(file: String, packet: Int, offset: Int, kind: String, needed: Int, found: Int)
    /// A transcript line that is not `out,<hex>` / `in,<hex>`.
    case badTranscriptLine(file: String, line: Int, text: String, problem: String)
    /// A writer could not create or write its file.
    case writeFailed(file: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            return "\(file): cannot read the file: \(reason)"
        case .empty(let file):
            return "\(file): the file is empty — expected a pcap, pcapng or transcript capture"
        case .unknownFormat(let file, let firstBytes):
            let shown = Hex.encode(firstBytes)
            return "\(file): unknown capture format (first bytes \(shown)) — expected pcap (A1B2C3D4/A1B23C4D), "
                + "pcapng (0A0D0D0A) or a transcript of out,<hex> / in,<hex> lines"
        case .truncated(let file, let part, let offset, let needed, let remaining):
            return part.span.message(file: file, offset: offset, needed: needed, remaining: remaining)
        case .malformedBlock(let file, let block, let offset, let problem):
            return "\(file): pcapng block \(block) at byte \(offset) is malformed: \(problem)"
        case .unsupportedLinkType(let file, let linkType):
            return "\(file): link type \(linkType) is not USB — expected 220 or 189 (Linux usbmon) or 249 (USBPcap); "
                + "capture on a usbmonN interface or with USBPcap"
        case .noUSBInterface(let file, let linkTypes):
            let found = linkTypes.isEmpty ? "none" : linkTypes.map(String.init).joined(separator: ", ")
            return "\(file): no USB interface in this pcapng file (link types found: \(found)) — expected 220 or 189 "
                + "(Linux usbmon) or 249 (USBPcap)"
        case .badPacketHeader(let file, let packet, let offset, let kind, let needed, let found):
            return "\(file): packet \(packet) at byte \(offset) is too short for its \(kind) header: "
                + "expected at least \(needed) bytes, found \(found)"
        case .badTranscriptLine(let file, let line, let text, let problem):
            return "\(file): line \(line) \"\(text)\": \(problem) — expected out,<hex> or in,<hex>"
        case .writeFailed(let file, let reason):
            return "\(file): cannot write the capture: \(reason)"
        }
    }
}

extension CaptureError {
    /// Runs a write of a capture file, its failure as `writeFailed`.
    static func writing<T>(_ body: () throws(FileWriteFailure) -> T) throws(CaptureError) -> T {
        do {
            return try body()
        } catch {
            throw .writeFailed(file: error.file, reason: error.reason)
        }
    }
}
