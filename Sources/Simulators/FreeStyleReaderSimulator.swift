import Drivers
import Foundation
import Transport

/// An Abbott FreeStyle reader in software, speaking the shared HID protocol as documented: the
/// init replies, text replies with `CKSM:` and `N,<checksum>` trailers, keep-alive reports between
/// replies, and reports that reuse their buffer (stale bytes after the length byte). Its records
/// are whatever the caller gives it: everything it serves is synthetic.
public final class FreeStyleReaderSimulator: USBTransport {
    public let device: USBDeviceDescription
    package var serial: String
    package var softwareVersion: String
    /// What `$date?` answers (`M,D,YY`) and `$time?` answers (`H,M`).
    package var date: String
    package var time: String
    /// Record lines (without line ends) of each records command, newest first as readers list
    /// them; a records command not listed here is refused with `CMD Fail!`.
    package var records: [String: [String]]
    /// The host's clock, read when a report is delivered.
    public var hostClock: () -> Date
    /// A keep-alive `22 01 xx` goes before every third reply.
    package var keepAliveByte: UInt8 = 0x05
    /// When set, a keep-alive also goes between the reports of a text reply, after every this many.
    package var keepAliveWithinReplies: Int?
    /// Answer every text command with `33 01 15`, as an encrypted reader (Libre 2 / 3) does
    /// before its encryption is set up. Set by giving the reader `keys`.
    package var encrypted = false
    /// A Libre 2 / Libre 3 reader's master keys: with them the reader serves the encrypted
    /// session (`FreeStyleHandshake`): the handshake, then every message not of a clear type
    /// sealed with the session keys, the host's checked against their MAC.
    package var keys: FreeStyleKeys? {
        didSet { encrypted = keys != nil }
    }
    /// The reader's nonces and IVs (8 and 7 bytes): by default a counter, so that a session is
    /// the same every time; a random source makes it a real reader's.
    package var randomBytes: (Int) -> [UInt8]
    /// Changes each report the reader sends (its bytes, and its number from 0) after it is sealed:
    /// a way to corrupt a MAC or a counter.
    package var reportFilter: (([UInt8], Int) -> [UInt8])?
    /// The serial number as the HID serial query answers it, when it differs from `serial`.
    package var hidSerial: String?
    /// The handshake's state, and the session's cipher once the handshake is done.
    package private(set) var challenge: FreeStyleHandshake.Challenge?
    package private(set) var hostNonce: [UInt8]?
    private var sessionCipher: FreeStyleSessionCipher?
    private var pendingCipher: FreeStyleSessionCipher?
    private var readerCounter: UInt32 = 0
    private var reportsSent = 0
    /// Send each record line in a report of its own (as the InsuLinx does) instead of packing
    /// the reply into full reports.
    package var lineReports = false
    /// Changes the bytes of a text reply (by command) before it is cut into reports: a way to
    /// serve a damaged reply.
    package var damage: [String: @Sendable ([UInt8]) -> [UInt8]] = [:]

    /// Every message the host sent, in order.
    package private(set) var messagesReceived: [FreeStyleMessage] = []
    /// How many of them came as SET_REPORT control transfers rather than to the OUT endpoint.
    package private(set) var setReportsReceived = 0
    package private(set) var claimed: Set<UInt8> = []
    var outbox: [[UInt8]] = []
    private var lastReport = [UInt8](repeating: 0, count: FreeStyleMessage.reportSize)
    private var replies = 0

    /// A reader with product id `productID` and one HID interface: interrupt IN 0x81, and
    /// interrupt OUT 0x01 when `outEndpoint` (otherwise the host must use SET_REPORT).
    package init(
        productID: UInt16, outEndpoint: Bool, serial: String, softwareVersion: String, date: String, time: String,
        records: [String: [String]], hostClock: @escaping () -> Date
    ) {
        var endpoints = [USBEndpoint(address: 0x81, type: .interrupt, maxPacketSize: 64)]
        if outEndpoint { endpoints.append(USBEndpoint(address: 0x01, type: .interrupt, maxPacketSize: 64)) }
        device = USBDeviceDescription(
            vendorID: FreeStyleModel.vendorID, productID: productID, bus: 3, address: 12,
            manufacturer: "Abbott Diabetes Care", product: "Simulated FreeStyle reader", serialNumber: nil,
            interfaces: [
                USBInterface(number: 0, interfaceClass: USBInterface.classHID, interfaceSubclass: 0, interfaceProtocol: 0, endpoints: endpoints)
            ])
        self.serial = serial
        self.softwareVersion = softwareVersion
        self.date = date
        self.time = time
        self.records = records
        self.hostClock = hostClock
        var counter: UInt8 = 0
        randomBytes = { count in
            (0..<count).map { _ in
                counter &+= 1
                return counter
            }
        }
    }

    public func claimInterface(_ number: UInt8) throws(TransportError) {
        guard number == 0 else { throw .claimFailed(interface: number, reason: "the simulated reader has only interface 0") }
        claimed.insert(number)
    }

    public func write(_ bytes: [UInt8], to endpoint: USBEndpoint, timeout: Duration) throws(TransportError) {
        guard device.interfaces[0].endpoints.contains(where: { $0.address == endpoint.address && $0.direction == .out }) else {
            throw .transferFailed(endpoint: endpoint.address, reason: "the simulated reader has no such OUT endpoint")
        }
        receive(bytes)
    }

    public func control(_ setup: USBControlSetup, data: [UInt8], timeout: Duration) throws(TransportError) -> USBRead {
        guard setup == HIDChannel.setReport(interface: 0, length: data.count) else {
            throw .transferFailed(endpoint: 0, reason: "the simulated reader answers only SET_REPORT on interface 0")
        }
        setReportsReceived += 1
        receive(data)
        return USBRead(bytes: [], hostTime: hostClock())
    }

    public func read(from endpoint: USBEndpoint, maxLength: Int, timeout: Duration) throws(TransportError) -> USBRead {
        guard endpoint.address == 0x81 else { throw .transferFailed(endpoint: endpoint.address, reason: "not the IN endpoint") }
        guard !outbox.isEmpty else { throw .timeout(endpoint: endpoint.address) }
        return USBRead(bytes: Array(outbox.removeFirst().prefix(maxLength)), hostTime: hostClock())
    }

    public func close() {
        claimed.removeAll()
    }

    func receive(_ report: [UInt8]) {
        let message: FreeStyleMessage
        if let sessionCipher, let type = report.first, !FreeStyleSessionCipher.isClear(type) {
            guard let opened = try? sessionCipher.open(report, from: .host, location: WireLocation()) else {
                // A report that fails its MAC is not the host's: refused as unknown.
                queue(FreeStyleMessage(type: FreeStyleMessage.Kind.unknownMessage, payload: [0x85]))
                return
            }
            message = opened
        } else {
            guard report.count >= 2, Int(report[1]) <= min(FreeStyleMessage.maximumPayload, report.count - 2) else {
                queue(FreeStyleMessage(type: FreeStyleMessage.Kind.unknownMessage, payload: [0x85]))
                return
            }
            message = FreeStyleMessage(type: report[0], payload: Array(report[2..<(2 + Int(report[1]))]))
        }
        messagesReceived.append(message)
        replies += 1
        if replies % 3 == 2 { queue(FreeStyleMessage(type: FreeStyleMessage.Kind.keepAlive, payload: [keepAliveByte])) }
        typealias Kind = FreeStyleMessage.Kind
        switch message.type {
        case Kind.hello: queue(FreeStyleMessage(type: Kind.helloReply, payload: [0x16]))
        case Kind.serial: queue(FreeStyleMessage(type: Kind.serialReply, payload: Array((hidSerial ?? serial).utf8) + [0]))
        case Kind.version: queue(FreeStyleMessage(type: Kind.versionReply, payload: Array(softwareVersion.utf8) + [0]))
        case Kind.ready:
            if pendingCipher != nil {
                sessionCipher = pendingCipher
                pendingCipher = nil
            }
            queue(FreeStyleMessage(type: Kind.readyReply, payload: [0x01]))
        case FreeStyleHandshake.request where keys != nil:
            handshake(message)
        case Kind.text, Kind.textAlternative:
            if encrypted, sessionCipher == nil {
                queue(FreeStyleMessage(type: Kind.encryption, payload: [0x15]))
            } else {
                reply(to: String(decoding: message.payload, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines.union(.controlCharacters)))
            }
        default: queue(FreeStyleMessage(type: Kind.unknownMessage, payload: [0x85]))
        }
    }

    /// The reader's side of the handshake: a challenge, then the acceptance of a response whose
    /// CMAC and reader nonce are right (`33 01 14` otherwise).
    private func handshake(_ message: FreeStyleMessage) {
        guard let keys else { return }
        let authorization = FreeStyleAuthorization(keys: keys, serial: Array(serial.utf8.prefix(FreeStyleHandshake.serialLength)))
        let refusal = FreeStyleMessage(type: FreeStyleHandshake.reply, payload: [0x14])
        if message.payload == [FreeStyleHandshake.startAuthorization] {
            let next = FreeStyleHandshake.Challenge(readerNonce: randomBytes(8), iv: randomBytes(7))
            challenge = next
            sessionCipher = nil
            queue(next.message)
            return
        }
        guard let challenge,
            let nonce = try? FreeStyleHandshake.hostNonce(inResponse: message, to: challenge, authorization: authorization, location: WireLocation())
        else {
            queue(refusal)
            return
        }
        hostNonce = nonce
        self.challenge = nil
        queue(FreeStyleHandshake.acceptance(readerNonce: challenge.readerNonce, hostNonce: nonce, iv: randomBytes(7), authorization: authorization))
        pendingCipher = FreeStyleSessionCipher(
            keys: keys, serial: Array(serial.utf8.prefix(FreeStyleHandshake.serialLength)), readerNonce: challenge.readerNonce, hostNonce: nonce)
    }

    /// The text reply to `command`, cut into reports.
    private func reply(to command: String) {
        var lines: [[UInt8]]
        var status = "CMD OK\r\n"
        switch command {
        case "$serlnum?", "$sn?": lines = [Array((serial + "\r\n").utf8)]
        case "$swver?": lines = [Array((softwareVersion + "\r\n").utf8)]
        case "$date?": lines = [Array((date + "\r\n").utf8)]
        case "$time?": lines = [Array((time + "\r\n").utf8)]
        default:
            if let rows = records[command], !rows.isEmpty {
                lines = rows.map { Array(($0 + "\r\n").utf8) }
                lines.append(Array("\(rows.count),\(Hex.digits(FreeStyleText.checksum(lines.joined()), count: 8))\r\n".utf8))
            } else if records[command] != nil {
                lines = [Array("Log Empty\r\n".utf8)]
            } else {
                lines = []
                status = "CMD Fail!\r\n"
            }
        }
        let message = Array(lines.joined())
        var text = message + Array("CKSM:\(Hex.digits(FreeStyleText.checksum(message), count: 8))\r\n\(status)".utf8)
        if let damage = damage[command] { text = damage(text) }
        var pieces: [ArraySlice<UInt8>] = []
        var offset = 0
        if lineReports, damage[command] == nil {
            for line in lines {
                guard line.count <= (sessionCipher == nil ? FreeStyleMessage.maximumPayload : FreeStyleSessionCipher.maximumPayload) else { break }
                pieces.append(text[offset..<(offset + line.count)])
                offset += line.count
            }
        }
        pieces += Self.chunks(text[offset...], size: sessionCipher == nil ? FreeStyleMessage.maximumPayload : FreeStyleSessionCipher.maximumPayload)
        for (index, piece) in pieces.enumerated() {
            if let every = keepAliveWithinReplies, index > 0, index % every == 0 {
                queue(FreeStyleMessage(type: FreeStyleMessage.Kind.keepAlive, payload: [keepAliveByte]))
            }
            queue(FreeStyleMessage(type: FreeStyleMessage.Kind.text, payload: Array(piece)))
        }
    }

    private static func chunks(_ bytes: ArraySlice<UInt8>, size: Int) -> [ArraySlice<UInt8>] {
        stride(from: bytes.startIndex, to: bytes.endIndex, by: size).map {
            bytes[$0..<min($0 + size, bytes.endIndex)]
        }
    }

    /// Queues a report built in the previous report's buffer: what follows the significant bytes
    /// is left over from before.
    private func queue(_ message: FreeStyleMessage) {
        defer { reportsSent += 1 }
        if let sessionCipher, !FreeStyleSessionCipher.isClear(message.type) {
            readerCounter &+= 1
            let sealed = sessionCipher.seal(message, counter: readerCounter, from: .reader)
            outbox.append(reportFilter?(sealed, reportsSent) ?? sealed)
            return
        }
        var report = lastReport
        report[0] = message.type
        report[1] = UInt8(message.payload.count)
        report.replaceSubrange(2..<(2 + message.payload.count), with: message.payload)
        lastReport = report
        outbox.append(reportFilter?(report, reportsSent) ?? report)
    }
}
