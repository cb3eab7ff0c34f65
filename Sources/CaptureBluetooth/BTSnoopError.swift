import Transport

/// The part of a btsnoop file that a `BTSnoopError.truncated` refers to.
public enum BTSnoopPart: Sendable, Equatable {
    /// The 16-byte file header at byte 0.
    case fileHeader
    /// The 24-byte header of a record (1-based record number).
    case recordHeader(record: Int)
    /// The packet bytes of a record (1-based record number).
    case recordData(record: Int)
}

/// How truncation messages name each part.
extension BTSnoopPart {
    var span: TruncatedSpan {
        switch self {
        case .fileHeader: .fileHeader(format: "btsnoop")
        case .recordHeader(let record): .recordHeader(unit: "record", number: record)
        case .recordData(let record): .recordBody(unit: "record", number: record, claiming: "bytes of packet data")
        }
    }
}

/// Why a btsnoop capture could not be read or written. Every case names the file and, where there
/// is one, the record number and byte offset; `description` is one line a person can act on.
public enum BTSnoopError: Error, Equatable, CustomStringConvertible {
    /// The file could not be opened or read; `reason` is the operating system's explanation.
    case unreadable(file: String, reason: String)
    /// The file has no bytes at all.
    case empty(file: String)
    /// The file does not start with the `btsnoop\0` identification; `firstBytes` are its first bytes.
    case notBTSnoop(file: String, firstBytes: [UInt8])
    /// The header announces a version other than 1.
    case unsupportedVersion(file: String, version: UInt32)
    /// The header announces a datalink this reader does not decode (only 1001, 1002 and 2001).
    case unsupportedDatalink(file: String, datalink: UInt32)
    /// A header or record claims more bytes than the file has left.
    case truncated(file: String, part: BTSnoopPart, offset: Int, needed: Int, remaining: Int)
    /// A record's packet is not well formed (length fields disagreeing, a packet shorter than its
    /// header, ACL fragments overrunning their L2CAP frame, …). `offset` is the record's byte
    /// offset in the file.
    case malformedPacket(file: String, record: Int, offset: Int, problem: String)
    /// A writer could not create or write its file.
    case writeFailed(file: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            return "\(file): cannot read the file: \(reason)"
        case .empty(let file):
            return "\(file): the file is empty — expected a btsnoop capture (Android btsnoop_hci.log or btmon -w)"
        case .notBTSnoop(let file, let firstBytes):
            return "\(file): not a btsnoop capture (first bytes \(Hex.encode(firstBytes))) — expected the "
                + "identification 62 74 73 6E 6F 6F 70 00 (\"btsnoop\") of an Android btsnoop_hci.log or a btmon -w file"
        case .unsupportedVersion(let file, let version):
            return "\(file): btsnoop version \(version) is not supported — only version 1 exists"
        case .unsupportedDatalink(let file, let datalink):
            return "\(file): btsnoop datalink \(datalink) is not supported — expected 1002 (HCI UART/H4, Android), "
                + "2001 (btmon monitor) or 1001 (unencapsulated HCI)"
        case .truncated(let file, let part, let offset, let needed, let remaining):
            return part.span.message(file: file, offset: offset, needed: needed, remaining: remaining)
        case .malformedPacket(let file, let record, let offset, let problem):
            return "\(file): record \(record) at byte \(offset) is malformed: \(problem)"
        case .writeFailed(let file, let reason):
            return "\(file): cannot write the btsnoop capture: \(reason)"
        }
    }
}
