import Transport

/// What went wrong reading an Accu-Chek meter (IEEE 11073-20601 over USB PHDC) or its capture.
public enum AccuChekError: Error, CustomStringConvertible, Equatable {
    /// An APDU's bytes do not match its layout: too short, a length that disagrees with its
    /// content, an unknown choice. `offset` counts from the APDU's first byte; `packet` is the
    /// capture packet the APDU ends in, when it was recorded.
    case malformedAPDU(apdu: String, offset: Int, reason: String, packet: Int? = nil)
    /// The meter sent an APDU the exchange does not allow at this point.
    case unexpectedAPDU(location: WireLocation, received: String)
    /// The meter answered a request with an error, a rejection or a failure result.
    case requestFailed(request: String, reason: String)
    /// The meter aborted the association (APDU 0xE600) after sending `afterResults` stored results.
    case aborted(reason: UInt16, afterResults: Int)
    /// The meter's configuration or attributes lack something the download needs.
    case missingAttribute(String)
    /// A stored entry could not be read (bad BCD time, impossible value).
    case badEntry(index: Int64, reason: String)
    /// The device has no PHDC interface with a bulk IN and OUT endpoint.
    case noDataInterface(device: String)
    /// The meter stopped before the exchange was complete.
    case incompleteTransfer(reason: String)
    /// The meter stopped answering: nothing arrived within the read timeout.
    case noAnswer(waitingFor: String, TransportError)
    case transport(TransportError)

    public var description: String {
        switch self {
        case .malformedAPDU(let apdu, let offset, let reason, let packet):
            "malformed \(apdu)\(packet.map { " ending at capture packet \($0)" } ?? "") at byte \(offset): \(reason)"
        case .unexpectedAPDU(let location, let received): "the meter sent \(received) \(location)"
        case .requestFailed(let request, let reason): "the meter refused \(request): \(reason)"
        case .aborted(let reason, let results):
            "the meter aborted the association (reason \(reason)) after \(results) result\(results == 1 ? "" : "s")"
        case .missingAttribute(let what): "the meter did not send \(what)"
        case .badEntry(let index, let reason): "stored result \(index): \(reason)"
        case .noDataInterface(let device): "\(device) has no PHDC interface (class 0x0F) with a bulk IN and OUT endpoint"
        case .incompleteTransfer(let reason): "the meter's transfer is incomplete: \(reason)"
        case .noAnswer(let what, let error): "the meter stopped answering while the host waited for \(what) (\(error))"
        case .transport(let error): error.description
        }
    }
}

extension AccuChekError: DriverError {
    public var transportError: TransportError? {
        switch self {
        case .transport(let error), .noAnswer(_, let error): error
        default: nil
        }
    }
}
