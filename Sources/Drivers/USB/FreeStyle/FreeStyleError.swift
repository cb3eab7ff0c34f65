import Transport

/// What went wrong reading an Abbott FreeStyle reader or its capture. Messages name the report,
/// command or row involved.
public enum FreeStyleError: Error, CustomStringConvertible {
    /// A HID report too short for its header, or whose length byte does not fit it.
    case badReport(location: WireLocation, reason: String)
    /// A message of a type that does not belong where it came.
    case unexpectedMessage(location: WireLocation, type: UInt8, expected: String)
    /// The reader answered `30 01 85`: it does not know the message it was sent.
    case unknownMessage(request: String)
    /// A checksum in a text reply does not match the bytes it covers (`part` is `CKSM` for the
    /// whole reply, `record trailer` for the records of a multi-record reply).
    case checksumMismatch(command: String, part: String, stated: UInt32, computed: UInt32)
    /// A text reply that is not `<message>CKSM:<8 hex>\r\nCMD OK\r\n`.
    case malformedReply(command: String, reason: String)
    /// A multi-record reply whose `N,<checksum>` trailer is missing or miscounts the records.
    case badTrailer(command: String, reason: String)
    /// The reader answered `CMD Fail!`.
    case commandFailed(command: String)
    /// A record row that cannot be read (too few fields, not a number, an impossible date).
    case malformedRow(command: String, row: Int, text: String, reason: String)
    /// The bytes stopped inside a text reply.
    case incompleteReply(command: String, received: Int)
    /// A text reply longer than any reader memory holds.
    case replyTooLong(command: String, limit: Int)
    /// The reader answered `33 01 15`: it wants the encrypted session (a Libre 2 or Libre 3)
    /// and the host did not set it up.
    case encryptedReader(reader: String)
    /// The Libre 2 / Libre 3 keys were found nowhere (`searched` lists where they were looked for).
    case keysMissing(searched: [String])
    /// A key file that cannot be used.
    case keys(reason: String)
    /// The encrypted session's handshake failed or stopped: `context` names the packet or step.
    case handshake(location: WireLocation, reason: String)
    /// An encrypted report whose MAC does not match its bytes.
    case macMismatch(location: WireLocation, stated: [UInt8], computed: [UInt8])
    /// A binary-protocol (ATP/AAP) frame, packet or record that cannot be read.
    case malformedBinary(location: WireLocation, reason: String)
    /// A binary-protocol CRC (ATP CRC32, record CRC16) that does not match its bytes.
    case binaryChecksumMismatch(what: String, stated: UInt32, computed: UInt32)
    /// The device has no HID interface with an IN endpoint.
    case noHIDInterface(device: String)
    /// Neither the HID serial query nor a text serial command was answered.
    case noSerialNumber
    case transport(TransportError)

    public var description: String {
        switch self {
        case .badReport(let location, let reason): "bad FreeStyle HID report \(location): \(reason)"
        case .unexpectedMessage(let location, let type, let expected):
            "unexpected FreeStyle message type 0x\(Hex.encode([type])) \(location); expected \(expected)"
        case .unknownMessage(let request): "the reader does not know the message \(request) (it answered 30 01 85)"
        case .checksumMismatch(let command, let part, let stated, let computed):
            "the reply to \(command) is corrupt: its \(part) checksum says \(Hex.digits(stated, count: 8)) but its bytes sum to \(Hex.digits(computed, count: 8)); nothing from this reply was stored"
        case .malformedReply(let command, let reason): "the reply to \(command) is malformed: \(reason)"
        case .badTrailer(let command, let reason): "the records of \(command) are not complete: \(reason); nothing from this reply was stored"
        case .commandFailed(let command): "the reader refused \(command) (CMD Fail!)"
        case .malformedRow(let command, let row, let text, let reason): "\(command) row \(row) \"\(text.prefix(60))\": \(reason)"
        case .incompleteReply(let command, let received): "the reply to \(command) stopped after \(received) bytes, before CMD OK"
        case .replyTooLong(let command, let limit): "the reply to \(command) went on past \(limit) bytes without CMD OK; the reader may be faulty"
        case .encryptedReader(let reader):
            "the \(reader) reader wants an encrypted session (it answered 33 01 15) that was not set up; nothing was stored"
        case .keysMissing(let searched):
            "FreeStyle Libre 2 / Libre 3 readers need keys, found in none of: \(searched.joined(separator: ", ")). Nothing was sent to the reader: \(FreeStyleKeys.howToGet)"
        case .keys(let reason): "the FreeStyle Libre 2 / Libre 3 keys cannot be used: \(reason)"
        case .handshake(let location, let reason): "the encrypted session's handshake failed \(location): \(reason); nothing was stored"
        case .macMismatch(let location, let stated, let computed):
            "the encrypted report \(location) is corrupt or forged: its MAC says \(Hex.encode(stated)) but its bytes give \(Hex.encode(computed)); nothing was stored"
        case .malformedBinary(let location, let reason): "malformed binary-protocol data \(location): \(reason)"
        case .binaryChecksumMismatch(let what, let stated, let computed):
            "\(what) is corrupt: its CRC says \(Hex.digits(stated, count: 8)) but its bytes give \(Hex.digits(computed, count: 8))"
        case .noHIDInterface(let device): "the device \(device) has no HID interface with an IN endpoint; is it a FreeStyle reader?"
        case .noSerialNumber: "the reader's serial number was not read (neither the HID serial query nor a serial command was answered)"
        case .transport(let error): error.description
        }
    }
}

extension FreeStyleError: DriverError {
    public var transportError: TransportError? {
        if case .transport(let error) = self { return error }
        return nil
    }
}
