import Transport

/// What is wrong with a FIT file, naming the file and the byte offset (from the file's start).
public enum FITError: DriverError, Equatable {
    /// The file does not start with a FIT header (`.FIT` at bytes 8–11): it is not a FIT file.
    case notFIT(file: String, reason: String)
    /// A FIT header after the first file of a chain is damaged; what came before it is whole.
    case badHeader(file: String, offset: Int, reason: String)
    /// The header's own CRC (bytes 12–13 of a 14-byte header) does not match its first 12 bytes.
    case headerCRC(file: String, offset: Int, stored: UInt16, computed: UInt16)
    /// The CRC after a file's records does not match the header and records.
    case fileCRC(file: String, offset: Int, stored: UInt16, computed: UInt16)
    /// The file ends inside a message or before its CRC; every whole message before `offset` is kept.
    case truncated(file: String, offset: Int, what: String)
    /// A record the decoder cannot read past (a data message of an undefined local type, a
    /// definition naming a field of no bytes, a message crossing the end of the records).
    case badRecord(file: String, offset: Int, reason: String)

    /// The byte offset named, when there is one.
    package var offset: Int? {
        switch self {
        case .notFIT: nil
        case .badHeader(_, let offset, _), .headerCRC(_, let offset, _, _), .fileCRC(_, let offset, _, _),
            .truncated(_, let offset, _), .badRecord(_, let offset, _):
            offset
        }
    }

    public var description: String {
        switch self {
        case .notFIT(let file, let reason): "\(file) is not a FIT file: \(reason)"
        case .badHeader(let file, let offset, let reason): "\(file): the FIT header at byte \(offset) is damaged: \(reason)"
        case .headerCRC(let file, let offset, let stored, let computed):
            "\(file): the FIT header at byte \(offset) has CRC \(Hex.literal(stored)), but its bytes give \(Hex.literal(computed))"
        case .fileCRC(let file, let offset, let stored, let computed):
            "\(file): the file CRC at byte \(offset) is \(Hex.literal(stored)), but the header and records give \(Hex.literal(computed))"
        case .truncated(let file, let offset, let what): "\(file) is cut short at byte \(offset): \(what)"
        case .badRecord(let file, let offset, let reason): "\(file): the record at byte \(offset) cannot be read: \(reason)"
        }
    }
}
