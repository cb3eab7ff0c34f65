/// What went wrong talking to a Bluetooth LE device, live or replayed. `description` is one line
/// that says what failed and, where there is something to do, what to do.
public enum BLEError: Error, Equatable, CustomStringConvertible {
    /// No usable Bluetooth on this machine (no kernel support, no adapter, no permission); the
    /// text is the whole explanation, e.g. "this kernel has no Bluetooth support (socket: …)".
    case bluetoothUnavailable(String)
    /// A system call on a Bluetooth socket failed.
    case socketFailed(call: String, reason: String)
    /// The L2CAP connection to the device could not be made.
    case connectFailed(peer: String, reason: String)
    /// The device (`SynBand (C0:11:22:33:44:55)`, or its address alone) did not answer
    /// `request` in time; the connection is closed, as ATT requires.
    case timeout(device: String, request: String, seconds: Int)
    /// The link is gone (closed by the device, out of range, closed by us, or the capture ends).
    case disconnected(String)
    /// The device answered `request` on `handle` with an Error Response.
    case attError(request: UInt8, handle: UInt16, code: ATTErrorCode)
    /// The device sent a PDU that does not answer the outstanding request.
    case unexpectedPDU(expected: String, received: [UInt8])
    /// A PDU too short for its fields, or with entries that do not fit.
    case malformedPDU(bytes: [UInt8], problem: String)
    /// Notifications or indications were asked of a characteristic without a CCCD or the property.
    case cannotSubscribe(characteristic: BluetoothUUID, valueHandle: UInt16, reason: String)
    /// A value longer than one PDU carries at the current MTU.
    case valueTooLong(handle: UInt16, length: Int, maximum: Int)
    /// Replay: the capture holds no PDU like the one the driver sent (searched after `afterRecord`).
    case requestNotInCapture(file: String, pdu: [UInt8], afterRecord: Int)
    /// The import ran past the time it was given, and was stopped at its next PDU.
    case deadlinePassed(Duration)
    /// Replay: the capture has no LE connection carrying ATT (matching the address asked for).
    case noConnectionInCapture(file: String, detail: String)

    /// Recording the session to a btsnoop file failed.
    case recordingFailed(String)
    /// The LE scan could not run.
    case scanFailed(String)

    public var description: String {
        switch self {
        case .bluetoothUnavailable(let why):
            return why
        case .socketFailed(let call, let reason):
            return "Bluetooth \(call) failed: \(reason)"
        case .connectFailed(let peer, let reason):
            return "cannot connect to \(peer): \(reason)"
        case .timeout(let device, let request, let seconds):
            return "the device \(device) did not answer the \(request) within \(seconds) s; the connection was closed "
                + "(move closer, or check that the device is on and not connected to a phone)"
        case .disconnected(let why):
            return "the Bluetooth connection ended: \(why)"
        case .deadlinePassed(let budget):
            return TransportError.deadlineText(budget)
        case .attError(let request, let handle, let code):
            let hint =
                code.needsSecurity
                ? " — pair the device first (bluetoothctl pair ADDRESS) so the link can be encrypted" : ""
            return "the device refused the \(ATTOpcode.name(request)) on handle \(handleText(handle)): \(code)\(hint)"
        case .unexpectedPDU(let expected, let received):
            return "the device sent \(Self.describe(received)) while glucobridge waited for \(expected)"
        case .malformedPDU(let bytes, let problem):
            return "malformed ATT PDU \(Hex.preview(bytes, limit: 24)): \(problem)"
        case .cannotSubscribe(let characteristic, let valueHandle, let reason):
            return "cannot subscribe to characteristic \(characteristic) (value handle \(handleText(valueHandle))): \(reason)"
        case .valueTooLong(let handle, let length, let maximum):
            return "a \(length)-byte value for handle \(handleText(handle)) does not fit one ATT PDU (at most \(maximum) at this MTU)"
        case .requestNotInCapture(let file, let pdu, let record):
            return "\(file): the capture holds no \(Self.describe(pdu)) after record \(record) — the capture was made by a "
                + "program that asked differently"
        case .noConnectionInCapture(let file, let detail):
            return "\(file): \(detail)"
        case .recordingFailed(let why):
            return "cannot record the Bluetooth session: \(why)"
        case .scanFailed(let why):
            return "the Bluetooth LE scan failed: \(why)"
        }
    }

    /// `Read Request 0A 15 00`.
    static func describe(_ pdu: [UInt8]) -> String {
        guard let first = pdu.first else { return "an empty PDU" }
        return "\(ATTOpcode.name(first)) \(Hex.preview(pdu, limit: 24))"
    }
}
