import Transport

/// What went wrong reading a Contour meter or its capture.
public enum ContourError: Error, CustomStringConvertible {
    /// A HID report is not an `ABC`+length report.
    case badReport(location: WireLocation, reason: String)
    /// An ASTM frame's checksum does not match its bytes.
    case frameChecksumMismatch(frame: WireLocation, expected: UInt8, found: String)
    /// An ASTM frame is malformed (no ETB/ETX, bad frame number, cut short).
    case malformedFrame(location: WireLocation, reason: String)
    /// A record could not be read.
    case malformedRecord(record: String, reason: String)
    /// The session held no header record, so the meter is unknown.
    case noHeader
    /// The session ended before the terminator record.
    case incompleteSession(reason: String)
    case transport(TransportError)

    public var description: String {
        switch self {
        case .badReport(let location, let reason): "bad HID report \(location): \(reason)"
        case .frameChecksumMismatch(let frame, let expected, let found):
            "ASTM frame \(frame): checksum is \(found) but its bytes give \(Hex.encode([expected]))"
        case .malformedFrame(let location, let reason): "malformed ASTM frame \(location): \(reason)"
        case .malformedRecord(let record, let reason): "cannot read the record \"\(record.prefix(60))\": \(reason)"
        case .noHeader: "the meter sent no header record, so the meter and its units are unknown"
        case .incompleteSession(let reason): "the meter's transfer is incomplete: \(reason)"
        case .transport(let error): error.description
        }
    }
}

extension ContourError: DriverError {
    public var transportError: TransportError? {
        if case .transport(let error) = self { return error }
        return nil
    }
}
