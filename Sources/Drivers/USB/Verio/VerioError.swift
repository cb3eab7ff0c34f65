import Transport

/// What went wrong reading a OneTouch Verio meter (LifeScan frames in SCSI blocks) or its
/// capture.
public enum VerioError: Error, CustomStringConvertible, Equatable {
    /// INQUIRY named another vendor: the disk is not a LifeScan meter and was never written.
    case notLifeScan(disk: String, vendor: String)
    /// The disk's first block lacks the meter's `LIFESCAN   FAT16` signature: it was never
    /// written.
    case wrongSignature(disk: String, found: String)
    /// A reply block does not hold a whole frame: `offset` counts from the block's first byte.
    case malformedFrame(reply: String, offset: Int, reason: String)
    /// A reply frame's CRC-16/CCITT-FALSE is not the one its bytes give.
    case badCRC(reply: String, sent: UInt16, computed: UInt16)
    /// The meter answered a command with a status other than success (0x06).
    case commandFailed(command: String, status: UInt8)
    /// A stored record could not be read.
    case badRecord(index: Int, reason: String)
    /// The conversation stopped before the download was complete.
    case incomplete(reason: String)
    /// The meter stopped answering.
    case noAnswer(waitingFor: String, TransportError)
    case transport(TransportError)

    public var description: String {
        switch self {
        case .notLifeScan(let disk, let vendor):
            "\(disk) is not a LifeScan meter: SCSI INQUIRY names the vendor \"\(vendor)\", not \"LifeScan\"; nothing was written to it"
        case .wrongSignature(let disk, let found):
            "\(disk) is not a LifeScan meter: its first block holds \"\(found)\" at byte 43, not \"LIFESCAN   FAT16\"; nothing was written to it"
        case .malformedFrame(let reply, let offset, let reason): "malformed \(reply) at byte \(offset): \(reason)"
        case .badCRC(let reply, let sent, let computed):
            "\(reply) fails its CRC-16/CCITT-FALSE: it carries \(Hex.literal(sent)), its bytes give \(Hex.literal(computed))"
        case .commandFailed(let command, let status): "the meter refused \(command) with status \(Hex.literal(status, digits: 2))"
        case .badRecord(let index, let reason): "record \(index): \(reason)"
        case .incomplete(let reason): "the meter's download is incomplete: \(reason)"
        case .noAnswer(let what, let error): "the meter stopped answering while the host waited for \(what) (\(error))"
        case .transport(let error): error.description
        }
    }
}

extension VerioError: DriverError {
    public var transportError: TransportError? {
        switch self {
        case .transport(let error), .noAnswer(_, let error): error
        default: nil
        }
    }
}

/// `0A` style: two uppercase hex digits.
