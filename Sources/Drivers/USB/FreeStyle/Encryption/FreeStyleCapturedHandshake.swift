import Transport

/// Follows an encrypted session through a capture of any host's conversation with a Libre 2 or
/// Libre 3 reader: the serial number, the challenge, the host's response (whose CMAC is checked
/// and whose host nonce is opened with the authorisation keys) and the reader's acceptance give
/// the session keys, as freestyle-hid derives them; every later report that is not of a clear
/// type is checked against its MAC and decrypted. A report is refused, naming its packet, when
/// its MAC fails, when the handshake is out of order or incomplete, or when encrypted traffic
/// comes without one.
struct FreeStyleCapturedHandshake {
    /// How far the handshake has come.
    enum Step: String {
        case none = "before the handshake"
        case started = "after the host's start (14 01 11)"
        case challenged = "after the reader's challenge (33 10 16)"
        case answered = "after the host's challenge response (14 1A 17)"
        case accepted = "after the reader's acceptance (33 22 18)"
    }

    private(set) var step = Step.none
    private var serial: (bytes: [UInt8], location: WireLocation)?
    private var challenge: FreeStyleHandshake.Challenge?
    private(set) var hostNonce: [UInt8]?
    private var authorization: FreeStyleAuthorization?
    private var keys: FreeStyleKeys?
    private(set) var cipher: FreeStyleSessionCipher?
    private var lastLocation: WireLocation = "at the start of the capture"
    /// Whether the device is known to encrypt (a Libre 2 or Libre 3 by its descriptors).
    let encrypted: Bool

    init(encrypted: Bool = false) {
        self.encrypted = encrypted
    }

    /// The master keys, asked once, when the capture first needs them.
    private mutating func masterKeys(_ source: () throws(FreeStyleError) -> FreeStyleKeys) throws(FreeStyleError) -> FreeStyleKeys {
        if let keys { return keys }
        let loaded = try source()
        keys = loaded
        return loaded
    }

    /// A report the host sent: its message, or nil for a handshake message (consumed here).
    mutating func host(_ report: [UInt8], location: WireLocation, keys: () throws(FreeStyleError) -> FreeStyleKeys) throws(FreeStyleError)
        -> FreeStyleMessage?
    {
        lastLocation = location
        if let type = report.first, step != .accepted, step != .none || encrypted, !FreeStyleSessionCipher.isClear(type) {
            throw .handshake(
                location: location,
                reason: "an encrypted report (type 0x\(Hex.encode([type]))) comes \(step.rawValue): the capture holds no complete handshake before it"
            )
        }
        let message = try FreeStyleSessionCipher.open(report, with: cipher, from: .host, location: location)
        guard message.type == FreeStyleHandshake.request else { return message }
        if message.payload == [FreeStyleHandshake.startAuthorization] {
            guard step == .none else {
                throw .handshake(location: location, reason: "a second handshake starts \(step.rawValue)")
            }
            step = .started
            return nil
        }
        guard message.payload.first == FreeStyleHandshake.responseCommand else {
            throw .handshake(location: location, reason: "unknown handshake message 14 \(Hex.encode(Array(message.payload.prefix(3))))")
        }
        guard step == .challenged, let challenge else {
            throw .handshake(location: location, reason: "a challenge response comes \(step.rawValue), not after the reader's challenge")
        }
        guard let serial else {
            throw .handshake(location: location, reason: "the capture holds no serial number (06) before the handshake, and the keys derive from it")
        }
        let authorization = FreeStyleAuthorization(keys: try masterKeys(keys), serial: serial.bytes)
        do {
            hostNonce = try FreeStyleHandshake.hostNonce(inResponse: message, to: challenge, authorization: authorization, location: location)
        } catch .macMismatch {
            throw .handshake(
                location: location,
                reason:
                    "the challenge response's CMAC does not match under the keys of serial \"\(String(decoding: serial.bytes, as: UTF8.self))\" (\(serial.location)): the serial number, the response or the keys are not the reader's"
            )
        }
        self.authorization = authorization
        step = .answered
        return nil
    }

    /// A report the reader sent: its message, or nil for a handshake message (consumed here).
    mutating func reader(_ report: [UInt8], location: WireLocation, keys: () throws(FreeStyleError) -> FreeStyleKeys) throws(FreeStyleError)
        -> FreeStyleMessage?
    {
        lastLocation = location
        if let type = report.first, step != .accepted, step != .none || encrypted, !FreeStyleSessionCipher.isClear(type),
            type != FreeStyleMessage.Kind.unknownMessage
        {
            throw .handshake(
                location: location,
                reason: "an encrypted report (type 0x\(Hex.encode([type]))) comes \(step.rawValue): the capture holds no complete handshake before it"
            )
        }
        let message = try FreeStyleSessionCipher.open(report, with: cipher, from: .reader, location: location)
        switch message.type {
        case FreeStyleMessage.Kind.serialReply:
            serial = (Array(message.payload.prefix(FreeStyleHandshake.serialLength)), location)
            return message
        case FreeStyleHandshake.reply:
            break
        default:
            return message
        }
        if message.payload == [0x15] { throw .encryptedReader(reader: "FreeStyle Libre 2 / Libre 3") }
        switch message.payload.first {
        case FreeStyleHandshake.challengeCommand:
            guard step == .started else { throw .handshake(location: location, reason: "a challenge comes \(step.rawValue)") }
            challenge = try FreeStyleHandshake.Challenge(message, location: location)
            step = .challenged
        case FreeStyleHandshake.acceptedCommand, 0x14:
            guard step == .answered, let challenge, let hostNonce, let authorization, let serial, let keys = self.keys else {
                throw .handshake(location: location, reason: "the reader's acceptance comes \(step.rawValue)")
            }
            try FreeStyleHandshake.verifyAcceptance(
                message, readerNonce: challenge.readerNonce, hostNonce: hostNonce, authorization: authorization, location: location)
            cipher = FreeStyleSessionCipher(keys: keys, serial: serial.bytes, readerNonce: challenge.readerNonce, hostNonce: hostNonce)
            step = .accepted
        default:
            throw .handshake(location: location, reason: "unknown handshake reply 33 \(Hex.encode(Array(message.payload.prefix(3))))")
        }
        return nil
    }

    /// At the end of the capture: a handshake begun and not finished is a cut capture.
    func finish() throws(FreeStyleError) {
        guard step == .none || step == .accepted else {
            throw .handshake(
                location: WireLocation(place: "at the end of the capture (last packet \(lastLocation))"),
                reason: "the capture stops \(step.rawValue): the handshake is cut")
        }
    }

    /// The host nonce of the capture's handshake and the serial it was made for, from the first
    /// challenge response (nil when the capture holds none).
    static func recordedHostNonce(in device: RecordedUSBDevice, keys: FreeStyleKeys) throws(FreeStyleError) -> (serial: [UInt8], nonce: [UInt8])? {
        var tracker = FreeStyleCapturedHandshake(encrypted: true)
        let source = { () throws(FreeStyleError) -> FreeStyleKeys in keys }
        for transfer in device.conversation {
            if transfer.direction == .out {
                _ = try tracker.host(transfer.data, location: WireLocation(message: "sent", packet: transfer.packetNumber), keys: source)
                if let nonce = tracker.hostNonce, let serial = tracker.serial { return (serial.bytes, nonce) }
            } else if transfer.status == 0, !transfer.data.isEmpty {
                _ = try tracker.reader(transfer.data, location: WireLocation(message: "from the reader", packet: transfer.packetNumber), keys: source)
            }
        }
        return nil
    }
}
