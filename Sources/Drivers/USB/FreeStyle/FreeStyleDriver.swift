import Foundation
import Model
import Pipeline
import Transport

/// Abbott FreeStyle readers speaking the shared HID protocol (USB 1A61): Libre and Libre Pro
/// (`$history?` sensor readings, `$arresult?` scans, strips and time changes), Libre 2 and
/// Libre 3 (the same, in an encrypted session: `FreeStyleHandshake`, `FreeStyleSessionCipher`),
/// Precision / Optium Neo and InsuLinx (`$result?`). Read-only: the host sends the init
/// sequence, the handshake and query commands (`$…?`) only.
public enum FreeStyleDriver: USBDeviceDriver {
    package static let family: DeviceFamily = "freestyle"
    package static let products: [USBProduct] = FreeStyleModel.allCases.flatMap { model in
        model.productIDs.map { USBProduct(vendorID: FreeStyleModel.vendorID, productID: $0, name: model.rawValue) }
    }
    package static let capabilities: DeviceCapabilities = [.glucose, .storedHistory, .passiveDecode]
    package static let summary = """
        Libre: 15-minute sensor readings (`$history?`) and scans and strips (`$arresult?`); Libre 2 and Libre 3: the same \
        in the encrypted session (Speck 64/128, keys from the freestyle-keys package: see [FreeStyle Libre 2 and Libre \
        3](docs/devices.md#freestyle-libre-2-and-libre-3)), every report's MAC verified; Neo / InsuLinx: strip results (`$result?`); \
        read-only (init and `$…?` queries only); every reply's checksum verified; ketone strips, rows the reader flags \
        invalid and time changes are counted, not stored; `HI`/`LO` become flags
        """

    /// How long one report may take to arrive.
    package static let readTimeout: Duration = .seconds(3)
    /// The most keep-alive reports skipped while waiting for one reply (the reader sends them
    /// while it gathers a long reply; far fewer arrive within a read timeout each).
    static let maximumKeepAlives = 1_000
    /// The most reports one text reply may take: each carries at least one byte of a reply of at
    /// most `FreeStyleText.replyLimit` bytes, and a reader's records take far fewer. Empty text
    /// reports beyond this mean the reader is not answering.
    static let maximumEmptyReports = 1_000
    /// The records commands asked when the model is not known (a capture without descriptors).
    static let allRecordCommands = ["$history?", "$arresult?", "$result?"]

    /// Reads the reader and keeps only the records after the store's cursors for it (the text
    /// protocol has no query for newer records, so the reader sends all of them). A Libre 2 or
    /// Libre 3 needs the keys (`FreeStyleKeys.locate()`): without them nothing is sent.
    package static func download(over transport: any USBTransport, context: DownloadContext) throws(FreeStyleError) -> GlucoseDownload {
        let session = try readSession(over: transport, progress: context.progress)
        return try session.normalised(after: context.cursors(try session.source()))
    }

    package static func decode(recorded device: RecordedUSBDevice) throws(FreeStyleError) -> GlucoseDownload {
        try decodeSession(device).normalised()
    }

    /// The model a device description names.
    static func model(of device: USBDeviceDescription) -> FreeStyleModel? {
        FreeStyleModel(vendorID: device.vendorID, productID: device.productID)
    }

    /// Holds the reader's conversation: the init sequence (with the serial and software version
    /// queries), the clock, then the model's records commands. Every text reply is verified.
    /// An encrypted reader (Libre 2, Libre 3) gets the keys from `keys` before anything is sent,
    /// then the handshake with a host nonce from `hostNonce` (by default a random one; in a
    /// replay of a recording, the one recorded), and its reports are sealed and opened with the
    /// session keys.
    public static func readSession(
        over transport: any USBTransport,
        keys: () throws(FreeStyleError) -> FreeStyleKeys = { () throws(FreeStyleError) in try FreeStyleKeys.locate() },
        hostNonce: (([UInt8]) -> [UInt8])? = nil, progress: DownloadProgress = .silent
    ) throws(FreeStyleError) -> FreeStyleSession {
        let model = model(of: transport.device)
        var session = FreeStyleSession(model: model)
        let link: FreeStyleLink
        if let model, model.isEncrypted {
            let keys = try keys()
            link = try FreeStyleLink(transport: transport, progress: progress)
            try openEncryptedSession(
                on: link, keys: keys, session: &session,
                hostNonce: hostNonce ?? { serial in
                    Self.hostNonce(for: transport, serial: serial, keys: keys)
                })
        } else {
            link = try FreeStyleLink(transport: transport, progress: progress)
            _ = try link.request(FreeStyleMessage.Kind.hello, expecting: FreeStyleMessage.Kind.helloReply)
            session.hidSerial = try link.request(FreeStyleMessage.Kind.serial, expecting: FreeStyleMessage.Kind.serialReply).nulTerminatedText
            session.softwareVersion = try link.request(FreeStyleMessage.Kind.version, expecting: FreeStyleMessage.Kind.versionReply).nulTerminatedText
            _ = try link.request(FreeStyleMessage.Kind.ready, expecting: FreeStyleMessage.Kind.readyReply)
        }
        var commands = session.model.map { [$0.serialCommand] } ?? []
        commands += ["$date?", "$time?"] + (session.model?.recordCommands ?? allRecordCommands)
        for command in commands {
            let (reply, hostTime) = try link.text(command)
            try session.absorb(textReply: FreeStyleText.verifiedMessage(of: reply, command: command), command: command, hostTime: hostTime)
        }
        return session
    }

    /// The handshake, host side (the steps in `FreeStyleHandshake`), then init; afterwards `link`
    /// seals and opens reports with the session keys.
    static func openEncryptedSession(
        on link: FreeStyleLink, keys: FreeStyleKeys, session: inout FreeStyleSession, hostNonce: ([UInt8]) -> [UInt8]
    ) throws(FreeStyleError) {
        let serialReply = try link.request(FreeStyleMessage.Kind.serial, expecting: FreeStyleMessage.Kind.serialReply)
        session.hidSerial = serialReply.nulTerminatedText
        let serial = Array(serialReply.payload.prefix(FreeStyleHandshake.serialLength))
        let authorization = FreeStyleAuthorization(keys: keys, serial: serial)
        try link.send(FreeStyleHandshake.start)
        let (challengeMessage, _) = try link.receive(answering: "the start of the handshake (14 01 11)")
        let challenge = try FreeStyleHandshake.Challenge(challengeMessage, location: "answering the start of the handshake (14 01 11)")
        let nonce = hostNonce(serial)
        try link.send(FreeStyleHandshake.response(to: challenge, hostNonce: nonce, authorization: authorization))
        let (acceptance, _) = try link.receive(answering: "the challenge response (14 1A 17)")
        try FreeStyleHandshake.verifyAcceptance(
            acceptance, readerNonce: challenge.readerNonce, hostNonce: nonce, authorization: authorization,
            location: WireLocation(place: "answering the challenge response (14 1A 17) of reader \(session.hidSerial ?? "")"))
        _ = try link.request(FreeStyleMessage.Kind.ready, expecting: FreeStyleMessage.Kind.readyReply)
        link.cipher = FreeStyleSessionCipher(keys: keys, serial: serial, readerNonce: challenge.readerNonce, hostNonce: nonce)
        session.encrypted = true
    }

    /// The host nonce of a new session: random, except in a conversation replay, where it is the
    /// nonce the recorded host chose (it travels encrypted in the recorded challenge response,
    /// and the authorisation keys open it), so that the replayed requests are the recorded ones.
    static func hostNonce(for transport: any USBTransport, serial: [UInt8], keys: FreeStyleKeys) -> [UInt8] {
        if let replay = transport as? any RecordedUSBTransport,
            let recorded = try? FreeStyleCapturedHandshake.recordedHostNonce(in: replay.recorded, keys: keys), recorded.serial == serial
        {
            return recorded.nonce
        }
        var generator = SystemRandomNumberGenerator()
        return (0..<8).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// Decodes another program's recorded conversation: host messages are read for the text
    /// commands they carry, and each completed text reply is matched to the oldest command not yet
    /// answered (replies come in the order of their commands, even when a program sends several
    /// before reading). An encrypted session (Libre 2, Libre 3) is followed through its handshake
    /// (`FreeStyleCapturedHandshake`): the session keys come from the serial number and the two
    /// nonces the capture holds, with the master keys from `keys` (asked only then).
    public static func decodeSession(
        _ device: RecordedUSBDevice,
        keys: () throws(FreeStyleError) -> FreeStyleKeys = { () throws(FreeStyleError) in try FreeStyleKeys.locate() }
    ) throws(FreeStyleError) -> FreeStyleSession {
        var session = FreeStyleSession(model: device.hasDescriptors ? model(of: device.description) : nil)
        var handshake = FreeStyleCapturedHandshake(encrypted: session.model?.isEncrypted ?? false)
        var waiting: [String] = []
        var lastRequest = "(none recorded)"
        var reply: [UInt8] = []
        var replyEnd: Date?
        for transfer in device.conversation {
            let location = WireLocation(packet: transfer.packetNumber)
            if transfer.direction == .out {
                guard let message = try handshake.host(transfer.data, location: location.with(message: "sent"), keys: keys) else { continue }
                lastRequest = FreeStyleLink.describe(message) + " " + location.description
                if message.type == FreeStyleMessage.Kind.text || message.type == FreeStyleMessage.Kind.textAlternative {
                    waiting.append(FreeStyleText.commandName(message.payload))
                }
                continue
            }
            // A poll the program cancelled or that failed carries no report.
            guard transfer.status == 0, !transfer.data.isEmpty else { continue }
            guard let message = try handshake.reader(transfer.data, location: location.with(message: "from the reader"), keys: keys) else {
                session.encrypted = handshake.cipher != nil
                continue
            }
            switch message.type {
            case FreeStyleMessage.Kind.keepAlive, FreeStyleMessage.Kind.helloReply, FreeStyleMessage.Kind.readyReply:
                continue
            case FreeStyleMessage.Kind.serialReply:
                session.hidSerial = message.nulTerminatedText
            case FreeStyleMessage.Kind.versionReply:
                session.softwareVersion = message.nulTerminatedText
            case FreeStyleMessage.Kind.text:
                reply += message.payload
                let command = waiting.first ?? "an unrequested text reply"
                guard reply.count <= FreeStyleText.replyLimit else { throw .replyTooLong(command: command, limit: FreeStyleText.replyLimit) }
                replyEnd = transfer.timestamp
                guard FreeStyleText.isComplete(reply) else { continue }
                if !waiting.isEmpty { waiting.removeFirst() }
                try session.absorb(textReply: FreeStyleText.verifiedMessage(of: reply, command: command), command: command, hostTime: replyEnd)
                reply = []
            case FreeStyleMessage.Kind.binaryResponse, FreeStyleMessage.Kind.binaryDeviceAck:
                session.binaryMessages += 1
            default:
                throw FreeStyleLink.refusal(message, location: location, request: lastRequest, expected: "a reply of the shared HID protocol")
            }
        }
        try handshake.finish()
        if !reply.isEmpty {
            throw .incompleteReply(command: waiting.first ?? "an unrequested text reply", received: reply.count)
        }
        return session
    }
}

/// The reader's HID interface, claimed, with the shared protocol's messages on top; once an
/// encrypted session is open, `cipher` seals what is sent and opens what arrives. Text commands
/// go as 0x60 in both, as glucometerutils sends them to a Libre 2 (its `fslibre2` driver keeps
/// the Libre's text message types).
final class FreeStyleLink {
    let channel: HIDChannel
    var cipher: FreeStyleSessionCipher?
    let progress: DownloadProgress

    init(transport: any USBTransport, progress: DownloadProgress) throws(FreeStyleError) {
        self.progress = progress
        guard let channel = HIDChannel(transport: transport) else { throw .noHIDInterface(device: transport.device.idString) }
        self.channel = channel
        do {
            try channel.claim()
        } catch {
            throw .transport(error)
        }
    }

    func send(_ message: FreeStyleMessage) throws(FreeStyleError) {
        do {
            // The host's counter stays 0, as freestyle-hid sends it (`FreeStyleSessionCipher`).
            try channel.send(cipher?.seal(message, counter: 0, from: .host) ?? message.report, timeout: FreeStyleDriver.readTimeout)
        } catch {
            throw .transport(error)
        }
    }

    /// The next message that is not a keep-alive, with the host's clock when it arrived.
    func receive(answering request: String) throws(FreeStyleError) -> (FreeStyleMessage, Date?) {
        for _ in 0...FreeStyleDriver.maximumKeepAlives {
            let read: USBRead
            do {
                read = try channel.receive(maxLength: FreeStyleMessage.reportSize, timeout: FreeStyleDriver.readTimeout)
            } catch {
                throw .transport(error)
            }
            let location = WireLocation(
                message: "from the reader answering \(request)", packet: (channel.transport as? any RecordedUSBTransport)?.lastReadPacketNumber)
            let message = try FreeStyleSessionCipher.open(read.bytes, with: cipher, from: .reader, location: location)
            if !message.isKeepAlive { return (message, read.hostTime) }
        }
        throw .transport(
            .transferFailed(
                endpoint: channel.inEndpoint.address,
                reason: "the reader sent only keep-alive reports (\(FreeStyleDriver.maximumKeepAlives)) answering \(request)"))
    }

    /// Sends a message without payload and returns the reply of the expected type.
    func request(_ type: UInt8, expecting replyType: UInt8) throws(FreeStyleError) -> FreeStyleMessage {
        let request = FreeStyleMessage(type: type)
        let name = Self.describe(request)
        try send(request)
        let (reply, _) = try receive(answering: name)
        guard reply.type == replyType else {
            throw Self.refusal(reply, location: WireLocation(place: "answering \(name)"), request: name, expected: "0x\(Hex.encode([replyType]))")
        }
        return reply
    }

    /// Sends a text command and gathers its reply up to `CMD OK` / `CMD Fail!` (unverified),
    /// with the host's clock when its last report arrived.
    func text(_ command: String) throws(FreeStyleError) -> (reply: [UInt8], hostTime: Date?) {
        try send(FreeStyleText.message(for: command))
        var reply: [UInt8] = []
        var empty = 0
        var lines = 0
        while true {
            let message: FreeStyleMessage
            let hostTime: Date?
            do {
                (message, hostTime) = try receive(answering: command)
            } catch .transport(.timeout) where !reply.isEmpty {
                throw .incompleteReply(command: command, received: reply.count)
            }
            guard message.type == FreeStyleMessage.Kind.text else {
                throw Self.refusal(message, location: WireLocation(place: "answering \(command)"), request: command, expected: "text replies (0x60)")
            }
            if message.payload.isEmpty {
                empty += 1
                guard empty <= FreeStyleDriver.maximumEmptyReports else { throw .incompleteReply(command: command, received: reply.count) }
            }
            reply += message.payload
            guard reply.count <= FreeStyleText.replyLimit else { throw .replyTooLong(command: command, limit: FreeStyleText.replyLimit) }
            // The row count is only in the trailer: a running count of the rows, the lines but
            // the trailer and CKSM lines (and the status line that ends a complete reply).
            lines += message.payload.count(where: { $0 == 0x0A })
            let complete = FreeStyleText.isComplete(reply)
            if FreeStyleDriver.allRecordCommands.contains(command) {
                progress.report("\(command) rows", done: max(0, lines - (complete ? 3 : 2)))
            }
            if complete { return (reply, hostTime) }
        }
    }

    /// The error a message out of place stands for: the reader's refusal (unknown message,
    /// encryption not set up), or a type that does not belong here.
    static func refusal(_ message: FreeStyleMessage, location: WireLocation, request: String, expected: String) -> FreeStyleError {
        switch message.type {
        case FreeStyleMessage.Kind.unknownMessage: .unknownMessage(request: request)
        case FreeStyleMessage.Kind.encryption: .encryptedReader(reader: "FreeStyle Libre 2 / Libre 3")
        default: .unexpectedMessage(location: location, type: message.type, expected: expected)
        }
    }

    /// `$date?`, or `message 0x05` for the HID queries.
    static func describe(_ message: FreeStyleMessage) -> String {
        if message.type == FreeStyleMessage.Kind.text || message.type == FreeStyleMessage.Kind.textAlternative {
            return FreeStyleText.commandName(message.payload)
        }
        return "message 0x\(Hex.encode([message.type]))"
    }
}
