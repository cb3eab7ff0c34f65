import Transport

/// Which side of the USB link sent a report.
public enum FreeStyleSide: Sendable {
    case host
    case reader
}

/// The authorisation keys of one reader: derived from the master keys and its 13-character
/// serial number with the labels `AuthrEnc` and `AuthrMAC` (freestyle-hid,
/// `freestyle_hid/_session.py`). They protect the handshake only.
public struct FreeStyleAuthorization: Sendable {
    package let encryption: Speck64_128
    package let mac: SpeckCMAC

    public init(keys: FreeStyleKeys, serial: [UInt8]) {
        encryption = Speck64_128(key: SpeckCMAC(key: keys.authorizationEncryption).derive(label: Array("AuthrEnc".utf8), context: serial))
        mac = SpeckCMAC(key: SpeckCMAC(key: keys.authorizationMAC).derive(label: Array("AuthrMAC".utf8), context: serial))
    }

    /// A handshake IV (7 bytes) as the stream cipher's first counter block: the IV follows a
    /// zero byte, the one the block counter counts in.
    static func counter(iv: [UInt8]) -> UInt64 { UInt64(littleEndianBytes: [0] + iv) }
}

/// The challenge–response handshake that opens the Libre 2 / Libre 3 reader's encrypted session
/// (message types and layouts as freestyle-hid, `freestyle_hid/_session.py`, implements them):
///
/// 1. host `05` → reader `06` with its serial number (13 characters and a NUL), in the clear;
/// 2. host `14 01 11` (start authorisation) → reader `33 10 16` ‖ reader nonce (8) ‖ IV (7);
/// 3. host `14 1A 17` ‖ Speck(reader nonce ‖ host nonce) ‖ `01` ‖ CMAC (8), encrypted and signed
///    with the authorisation keys, the CMAC over everything before it from the type byte;
/// 4. reader `33 22 18` ‖ Speck(host nonce ‖ reader nonce) ‖ IV (7) ‖ CMAC (8) ‖ 2 bytes whose
///    meaning is not public, the CMAC over the 26 bytes before it;
/// 5. host `01` → reader `71 01 01` (init), after which every other message is encrypted with
///    the session keys (`FreeStyleSessionCipher`).
public enum FreeStyleHandshake {
    /// Host message type of the handshake; the reader's is `FreeStyleMessage.Kind.encryption` (0x33).
    package static let request: UInt8 = 0x14
    package static let reply: UInt8 = FreeStyleMessage.Kind.encryption
    /// Sub-commands (the payload's first byte).
    package static let startAuthorization: UInt8 = 0x11
    package static let challengeCommand: UInt8 = 0x16
    package static let responseCommand: UInt8 = 0x17
    package static let acceptedCommand: UInt8 = 0x18
    /// The response's payload length and the acceptance's, as readers send it.
    package static let responseLength = 0x1A
    package static let acceptanceLength = 0x22
    /// The serial number's characters that go into the key derivations.
    package static let serialLength = 13

    /// The host's first handshake message.
    package static let start = FreeStyleMessage(type: request, payload: [startAuthorization])

    /// The reader's challenge: its nonce and the IV the host encrypts with.
    public struct Challenge: Sendable, Equatable {
        package var readerNonce: [UInt8]
        package var iv: [UInt8]

        package init(readerNonce: [UInt8], iv: [UInt8]) {
            self.readerNonce = readerNonce
            self.iv = iv
        }

        /// Reads a `33 10 16 …` message; `context` names the packet in the error.
        public init(_ message: FreeStyleMessage, location: WireLocation) throws(FreeStyleError) {
            guard message.type == reply, message.payload.first == challengeCommand, message.payload.count >= 16 else {
                throw .handshake(location: location, reason: "expected the reader's challenge (33 10 16, nonce and IV), got \(Self.show(message))")
            }
            readerNonce = Array(message.payload[1..<9])
            iv = Array(message.payload[9..<16])
        }

        package var message: FreeStyleMessage { FreeStyleMessage(type: reply, payload: [challengeCommand] + readerNonce + iv) }

        static func show(_ message: FreeStyleMessage) -> String {
            Hex.encode([message.type, UInt8(truncatingIfNeeded: message.payload.count)] + message.payload.prefix(3))
                + (message.payload.count > 3 ? " …" : "")
        }
    }

    /// The host's answer to `challenge`: both nonces encrypted, and signed.
    package static func response(to challenge: Challenge, hostNonce: [UInt8], authorization: FreeStyleAuthorization) -> FreeStyleMessage {
        let encrypted = authorization.encryption.applyKeystream(
            counter: FreeStyleAuthorization.counter(iv: challenge.iv), to: challenge.readerNonce + hostNonce)
        let signed = [request, UInt8(responseLength), responseCommand] + encrypted + [0x01]
        return FreeStyleMessage(type: request, payload: Array(signed.dropFirst(2)) + authorization.mac.tagBytes(signed))
    }

    /// The host nonce in the host's response, after its CMAC is checked and its reader nonce is
    /// found to be the challenge's (the reader's check, and a passive decoder's).
    public static func hostNonce(
        inResponse message: FreeStyleMessage, to challenge: Challenge, authorization: FreeStyleAuthorization, location: WireLocation
    ) throws(FreeStyleError) -> [UInt8] {
        let payload = message.payload
        guard message.type == request, payload.count == responseLength, payload[0] == responseCommand, payload[17] == 0x01 else {
            throw .handshake(location: location, reason: "expected the host's challenge response (14 1A 17 …), got \(Challenge.show(message))")
        }
        let signed = [request, UInt8(responseLength)] + payload[0..<18]
        let computed = authorization.mac.tagBytes(signed)
        guard computed.elementsEqual(payload[18..<26]) else {
            throw .macMismatch(location: location, stated: Array(payload[18..<26]), computed: computed)
        }
        let nonces = authorization.encryption.applyKeystream(counter: FreeStyleAuthorization.counter(iv: challenge.iv), to: payload[1..<17])
        guard Array(nonces[0..<8]) == challenge.readerNonce else {
            throw .handshake(
                location: location,
                reason: "the challenge response does not carry the reader's nonce: the keys or the serial number are not the reader's")
        }
        return Array(nonces[8..<16])
    }

    /// The reader's acceptance of the host's response, encrypted with a fresh `iv`.
    package static func acceptance(readerNonce: [UInt8], hostNonce: [UInt8], iv: [UInt8], authorization: FreeStyleAuthorization) -> FreeStyleMessage {
        let encrypted = authorization.encryption.applyKeystream(counter: FreeStyleAuthorization.counter(iv: iv), to: hostNonce + readerNonce)
        let signed = [reply, UInt8(acceptanceLength), acceptedCommand] + encrypted + iv
        return FreeStyleMessage(type: reply, payload: Array(signed.dropFirst(2)) + authorization.mac.tagBytes(signed) + [0, 0])
    }

    /// Checks the reader's acceptance: its CMAC, then that it returns both nonces.
    public static func verifyAcceptance(
        _ message: FreeStyleMessage, readerNonce: [UInt8], hostNonce: [UInt8], authorization: FreeStyleAuthorization, location: WireLocation
    ) throws(FreeStyleError) {
        let payload = message.payload
        if message.type == reply, payload == [0x14] {
            throw .handshake(location: location, reason: "the reader refused the challenge response (33 01 14): the keys are not the reader's")
        }
        guard message.type == reply, payload.count >= 32, payload[0] == acceptedCommand else {
            throw .handshake(location: location, reason: "expected the reader's acceptance (33 22 18 …), got \(Challenge.show(message))")
        }
        let signed = [reply, UInt8(payload.count)] + payload[0..<24]
        let computed = authorization.mac.tagBytes(signed)
        guard computed.elementsEqual(payload[24..<32]) else {
            throw .macMismatch(location: location, stated: Array(payload[24..<32]), computed: computed)
        }
        let nonces = authorization.encryption.applyKeystream(
            counter: FreeStyleAuthorization.counter(iv: Array(payload[17..<24])), to: payload[1..<17])
        guard nonces == hostNonce + readerNonce else {
            throw .handshake(location: location, reason: "the reader's acceptance does not return both nonces")
        }
    }
}

/// The encrypted framing of a Libre 2 / Libre 3 session once the handshake is done
/// (freestyle-hid, `freestyle_hid/_session.py`): in each 64-byte report, bytes 1–55 (the length
/// byte and up to 54 bytes of payload, zero-padded) are encrypted with Speck 64/128 in counter
/// mode; bytes 56–59 carry a counter; bytes 60–63 are the last four bytes of the CMAC of bytes
/// 0–59. The type byte stays in the clear, and so do the messages of `clearTypes` whole.
///
/// The first counter block is `00 00 00 c0 c1 c2 c3 d`, with `c0…c3` bytes 56–59 of the report
/// and `d` 0xFF for the host's reports, 0 for the reader's: freestyle-hid decrypts the reader's
/// reports that way and encrypts its own with counter 0 and that 0xFF.
public struct FreeStyleSessionCipher: Sendable {
    /// Payload bytes an encrypted report carries.
    public static let maximumPayload = 54
    /// Types never encrypted: init, the HID queries and their replies, the handshake, binary
    /// acknowledgements, keep-alives.
    package static let clearTypes: Set<UInt8> = [0x01, 0x04, 0x05, 0x06, 0x0C, 0x0D, 0x14, 0x15, 0x33, 0x34, 0x35, 0x71, 0x22]

    let encryption: Speck64_128
    let mac: SpeckCMAC

    /// The session keys: derived with the labels `SessnEnc` and `SessnMAC` from the serial number
    /// and both nonces (serial ‖ reader nonce ‖ host nonce).
    public init(keys: FreeStyleKeys, serial: [UInt8], readerNonce: [UInt8], hostNonce: [UInt8]) {
        let context = serial + readerNonce + hostNonce
        encryption = Speck64_128(key: SpeckCMAC(key: keys.sessionEncryption).derive(label: Array("SessnEnc".utf8), context: context))
        mac = SpeckCMAC(key: SpeckCMAC(key: keys.sessionMAC).derive(label: Array("SessnMAC".utf8), context: context))
    }

    public static func isClear(_ type: UInt8) -> Bool { clearTypes.contains(type) }

    static func counterBlock(_ counter: some Collection<UInt8>, from side: FreeStyleSide) -> UInt64 {
        UInt64(littleEndianBytes: [0, 0, 0] + Array(counter) + [side == .host ? 0xFF : 0])
    }

    /// The 64-byte report carrying `message` (a clear type goes as it is).
    public func seal(_ message: FreeStyleMessage, counter: UInt32, from side: FreeStyleSide) -> [UInt8] {
        guard !Self.isClear(message.type) else { return message.report }
        precondition(message.payload.count <= Self.maximumPayload, "an encrypted FreeStyle report carries at most 54 bytes")
        var report = message.report
        let counterBytes = counter.littleEndianBytes
        report.replaceSubrange(1..<56, with: encryption.applyKeystream(counter: Self.counterBlock(counterBytes, from: side), to: report[1..<56]))
        report.replaceSubrange(56..<60, with: counterBytes)
        report.replaceSubrange(60..<64, with: mac.tagBytes(report[0..<60]).suffix(4))
        return report
    }

    /// The message in a report: opened with `cipher` when there is one, else read in the clear.
    package static func open(_ report: [UInt8], with cipher: FreeStyleSessionCipher?, from side: FreeStyleSide, location: WireLocation)
        throws(FreeStyleError) -> FreeStyleMessage
    {
        if let cipher { return try cipher.open(report, from: side, location: location) }
        return try FreeStyleMessage.decode(report, location: location)
    }

    /// The message in a report from `side`: a clear type is read as it is; any other is checked
    /// against its MAC and then decrypted. `context` names the report in errors.
    public func open(_ report: [UInt8], from side: FreeStyleSide, location: WireLocation) throws(FreeStyleError) -> FreeStyleMessage {
        guard let type = report.first, !Self.isClear(type) else { return try FreeStyleMessage.decode(report, location: location) }
        guard report.count == FreeStyleMessage.reportSize else {
            throw .badReport(location: location, reason: "an encrypted report is 64 bytes; this one has \(report.count)")
        }
        let computed = Array(mac.tagBytes(report[0..<60]).suffix(4))
        guard computed.elementsEqual(report[60..<64]) else {
            throw .macMismatch(location: location, stated: Array(report[60..<64]), computed: computed)
        }
        let plain = encryption.applyKeystream(counter: Self.counterBlock(report[56..<60], from: side), to: report[1..<56])
        guard Int(plain[0]) <= Self.maximumPayload else {
            throw .badReport(location: location, reason: "decrypted length byte \(plain[0]) is more than the 54 bytes an encrypted report carries")
        }
        return FreeStyleMessage(type: type, payload: Array(plain[1..<(1 + Int(plain[0]))]))
    }
}
