import Transport

/// What went wrong talking to a Dexcom receiver or decoding its data. Every message names the
/// command, page or record involved, so the person reading it can tell where the bytes went bad.
public enum DexcomError: Error, CustomStringConvertible {
    /// A packet's CRC-16 does not match its bytes.
    case packetCRCMismatch(location: WireLocation, expected: UInt16, found: UInt16)
    /// A packet is not a valid frame (bad start byte, impossible length).
    case malformedPacket(location: WireLocation, reason: String)
    /// The receiver answered with something other than ACK.
    case replyRejected(command: String, location: WireLocation, code: String)
    /// A reply's payload does not have the shape its command calls for.
    case unexpectedReply(location: WireLocation, reason: String)
    /// The bytes stopped before a whole reply packet arrived.
    case incompleteReply(location: WireLocation, received: Int, expected: Int?)
    case pageCRCMismatch(partition: String, page: UInt32, expected: UInt16, found: UInt16)
    case recordCRCMismatch(partition: String, page: UInt32, record: UInt32, expected: UInt16, found: UInt16)
    case malformedPage(partition: String, page: UInt32, reason: String)
    /// No record length is known for this partition and revision.
    case unsupportedRecordLayout(partition: String, revision: UInt8)
    /// The device has no interface with a bulk IN and a bulk OUT endpoint.
    case noDataInterface(device: String)
    /// The download holds no manufacturing record, so the receiver's serial number is unknown.
    case noSerialNumber
    /// The wire failed.
    case transport(TransportError)

    public var description: String {
        switch self {
        case .packetCRCMismatch(let location, let expected, let found):
            "CRC mismatch in the \(location): the packet says \(Hex.literal(found)) but its bytes give \(Hex.literal(expected))"
        case .malformedPacket(let location, let reason): "malformed packet in the \(location): \(reason)"
        case .replyRejected(let command, let location, let code): "the receiver refused \(command) \(location): it answered \(code)"
        case .unexpectedReply(let location, let reason): "unexpected \(location): \(reason)"
        case .incompleteReply(let location, let received, let expected):
            "the \(location) is incomplete: \(received) bytes arrived" + (expected.map { " of \($0)" } ?? "")
        case .pageCRCMismatch(let partition, let page, let expected, let found):
            "\(partition) page \(page): header CRC is \(Hex.literal(found)) but its bytes give \(Hex.literal(expected)); the page is corrupt"
        case .recordCRCMismatch(let partition, let page, let record, let expected, let found):
            "\(partition) page \(page), record \(record): CRC is \(Hex.literal(found)) but its bytes give \(Hex.literal(expected)); the record is corrupt or the record length is wrong"
        case .malformedPage(let partition, let page, let reason): "\(partition) page \(page) is malformed: \(reason)"
        case .unsupportedRecordLayout(let partition, let revision):
            "no record layout is known for \(partition) revision \(revision) and the receiver did not describe it"
        case .noDataInterface(let device): "the device \(device) has no interface with bulk IN and OUT endpoints; is it a Dexcom receiver?"
        case .noSerialNumber:
            "the download holds no manufacturing record, so the receiver's serial number is unknown (a capture must include the ManufacturingData page)"
        case .transport(let error): error.description
        }
    }
}

extension DexcomError: DriverError {
    public var transportError: TransportError? {
        if case .transport(let error) = self { return error }
        return nil
    }
}
