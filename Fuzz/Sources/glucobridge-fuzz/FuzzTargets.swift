import CaptureBluetooth
import CaptureUSB
import Drivers
import Foundation
import Importer
import Store
import Transport
import TransportReplay

// One libFuzzer binary holding every target; `FUZZ_TARGET` names the one a run fuzzes (each has
// its own corpus folder, see Fuzz/run). Every parser of outside bytes is reached: capture formats,
// the Bluetooth stack, the device protocols, and the whole replay into a store. A target only
// calls the code; a crash, a trap (overflow, index out of range) or a hang is the finding.

/// Runs `body`, ignoring the typed error every parser throws on bad bytes.
@inline(__always)
func attempt<T>(_ body: () throws -> T) { _ = try? body() }

/// The input cut into pieces, each a 2-byte little-endian length and that many bytes (a short
/// last piece takes what is left): several packets from one input.
func pieces(_ bytes: [UInt8]) -> [[UInt8]] {
    var result: [[UInt8]] = []
    var at = 0
    while at + 2 <= bytes.count, result.count < 512 {
        let length = Int(bytes[at]) | Int(bytes[at + 1]) << 8
        at += 2
        let end = min(bytes.count, at + length)
        result.append(Array(bytes[at..<end]))
        at = end
    }
    return result
}

/// A classic pcap (microseconds, little-endian) of `link` holding each piece as one packet.
func pcap(link: UInt32, packets: [[UInt8]]) -> [UInt8] {
    func u32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    var file = u32(0xA1B2_C3D4) + [2, 0, 4, 0] + u32(0) + u32(0) + u32(65_535) + u32(link)
    for (index, packet) in packets.enumerated() {
        file += u32(1_700_000_000) + u32(UInt32(index)) + u32(UInt32(packet.count)) + u32(UInt32(packet.count)) + packet
    }
    return file
}

/// Decodes a BLE characteristic value with the codec the first byte picks.
func bleValue(_ bytes: [UInt8]) {
    guard let selector = bytes.first else { return }
    let value = Array(bytes.dropFirst())
    let e2e: Bool? = selector & 0x80 == 0 ? nil : selector & 0x40 != 0
    switch selector & 0x0F {
    case 0: attempt { try CGMMeasurement.records(in: value, e2eCRC: e2e) }
    case 1: attempt { try CGMFeature.decode(value) }
    case 2: attempt { try CGMStatus.decode(value, e2eCRC: e2e) }
    case 3: attempt { try CGMSessionStartTime.decode(value, e2eCRC: e2e) }
    case 4: attempt { try CGMSessionRunTime.decode(value, e2eCRC: e2e) }
    case 5: attempt { try GlucoseMeasurement.decode(value) }
    case 6: attempt { try GlucoseMeasurementContext.decode(value) }
    case 7: attempt { try RACPResponse.decode(value) }
    case 8: attempt { try HeartRateMeasurement.decode(value) }
    case 9: attempt { try BodySensorLocation.decode(value) }
    case 10: attempt { try CSCMeasurement.decode(value) }
    case 11: attempt { try RSCMeasurement.decode(value) }
    case 12: attempt { try FitnessMachineFeature.decode(value) }
    case 13: attempt { try TreadmillData.decode(value) }
    case 14: attempt { try IndoorBikeData.decode(value) }
    default: _ = CGMMeasurement.recordResults(in: value, e2eCRC: e2e)
    }
}

/// The ASTM link decoder and the Contour session on a byte stream from the meter.
func astm(_ bytes: [UInt8]) {
    var decoder = ASTMLinkDecoder()
    var session = ContourSession()
    decoder.append(bytes)
    while true {
        guard let event = try? decoder.next(location: "fuzz") else { break }
        if case .frame(let frame) = event, (try? session.absorb(frame, hostTime: nil)) == nil { break }
    }
    attempt { try session.normalised() }
    let text = String(decoding: bytes, as: UTF8.self)
    attempt { try ContourHeader(text) }
    attempt { try ContourResult(text, delimiters: ASTMDelimiters()) }
}

/// FreeStyle reports and text replies, as each records command would take them.
func freeStyleText(_ bytes: [UInt8]) {
    attempt { try FreeStyleMessage.decode(bytes, location: "fuzz") }
    for command in ["$history?", "$arresult?", "$result?", "$date?", "$time?", "$sn?"] {
        var session = FreeStyleSession(model: .libre)
        if let message = try? FreeStyleText.verifiedMessage(of: bytes, command: command) {
            attempt { try session.absorb(textReply: message, command: command, hostTime: nil) }
        }
        attempt { try session.absorb(textReply: bytes, command: command, hostTime: nil) }
        attempt { try session.normalised() }
    }
}

/// Keys made up for fuzzing (not a reader's): the seeds' sessions are made with them.
let fuzzKeys = FreeStyleKeys(
    authorizationEncryption: SpeckKey(high: 0x0011_2233_4455_6677, low: 0x8899_AABB_CCDD_EEFF),
    authorizationMAC: SpeckKey(high: 0x0F1E_2D3C_4B5A_6978, low: 0x8796_A5B4_C3D2_E1F0),
    sessionEncryption: SpeckKey(high: 0x1357_9BDF_0246_8ACE, low: 0x1357_9BDF_0246_8ACE),
    sessionMAC: SpeckKey(high: 0xFEDC_BA98_7654_3210, low: 0x0123_4567_89AB_CDEF), origin: "fuzz")

/// A Libre 2 session's reports, each piece one report, its first byte's low bit telling the
/// side (1 the host, 0 the reader), as a transcript decoded passively: the handshake (serial,
/// challenge, response and its CMAC, acceptance), then every encrypted report.
func freeStyleHandshake(_ bytes: [UInt8]) {
    let lines = pieces(bytes).compactMap { piece -> String? in
        guard let side = piece.first else { return nil }
        return (side & 1 == 1 ? "out," : "in,") + Hex.encode(Array(piece.dropFirst())).replacingOccurrences(of: " ", with: "")
    }
    let transcript = Array(("# fuzz\n" + lines.joined(separator: "\n") + "\n").utf8)
    guard let capture = try? USBCaptureReader.parse(transcript, name: "fuzz") else { return }
    for device in RecordedUSBDevice.devices(in: capture) {
        attempt { try FreeStyleDriver.decodeSession(device, keys: { () throws(FreeStyleError) in fuzzKeys }).normalised() }
    }
    // The handshake messages alone, as the reader and the host read them.
    let authorization = FreeStyleAuthorization(keys: fuzzKeys, serial: Array("MAGA987-J0123".utf8))
    for piece in pieces(bytes) {
        guard let message = try? FreeStyleMessage.decode(Array(piece.dropFirst()), location: "fuzz") else { continue }
        attempt { () throws -> Void in
            let challenge = try FreeStyleHandshake.Challenge(message, location: "fuzz")
            _ = try FreeStyleHandshake.hostNonce(inResponse: message, to: challenge, authorization: authorization, location: "fuzz")
        }
        attempt {
            try FreeStyleHandshake.verifyAcceptance(
                message, readerNonce: Array(1...8), hostNonce: Array(9...16), authorization: authorization, location: "fuzz")
        }
    }
}

/// Encrypted reports opened with a session's keys, and their text replies parsed. The first byte
/// picks the side (bit 0) and whether the report is signed first (bit 1: a valid MAC, so that the
/// decryption and the text behind it are reached). A report whose MAC fails must never open.
func freeStyleEncrypted(_ bytes: [UInt8]) {
    guard let flags = bytes.first else { return }
    let serial = Array("MAGA987-J0123".utf8)
    let readerNonce: [UInt8] = Array(1...8)
    let hostNonce: [UInt8] = Array(9...16)
    let cipher = FreeStyleSessionCipher(keys: fuzzKeys, serial: serial, readerNonce: readerNonce, hostNonce: hostNonce)
    let mac = SpeckCMAC(key: SpeckCMAC(key: fuzzKeys.sessionMAC).derive(label: Array("SessnMAC".utf8), context: serial + readerNonce + hostNonce))
    var report = Array(bytes.dropFirst())
    if flags & 2 != 0, report.count >= 64 {
        report.replaceSubrange(60..<64, with: mac.tagBytes(report[0..<60]).suffix(4))
    }
    let side: FreeStyleSide = flags & 1 == 1 ? .host : .reader
    guard let message = try? cipher.open(report, from: side, location: "fuzz") else { return }
    if let type = report.first, !FreeStyleSessionCipher.isClear(type) {
        precondition(
            report.count == 64 && Array(mac.tagBytes(report[0..<60]).suffix(4)) == Array(report[60..<64]), "a report whose MAC fails was opened")
    }
    for command in ["$history?", "$arresult?", "$sn?"] {
        var session = FreeStyleSession(model: .libre3)
        attempt {
            try session.absorb(textReply: FreeStyleText.verifiedMessage(of: message.payload, command: command), command: command, hostTime: nil)
        }
    }
    // Sealing what was opened gives a report that opens to the same message.
    if message.payload.count <= FreeStyleSessionCipher.maximumPayload, !FreeStyleSessionCipher.isClear(message.type) {
        precondition(
            (try? cipher.open(cipher.seal(message, counter: 7, from: side), from: side, location: "fuzz")) == message, "seal and open disagree")
    }
}

/// A Dexcom byte stream: frames, and a reply payload read as database pages.
func dexcom(_ bytes: [UInt8], asPages: Bool) {
    if asPages {
        var session = DexcomDownload()
        let count = UInt8(max(1, min(8, bytes.count / DexcomPage.size)))
        for partition: UInt8 in [0, 4, 5] {
            attempt {
                try session.absorb(
                    request: DexcomPacket(code: DexcomCommand.readDatabasePages.rawValue, payload: [partition, 0, 0, 0, 0, count]),
                    reply: DexcomPacket(code: DexcomReplyCode.ack.rawValue, payload: bytes), hostTime: nil, where: "fuzz")
            }
        }
        attempt { try DexcomDriver.normalise(session) }
        return
    }
    var assembler = DexcomPacketAssembler(location: "fuzz")
    assembler.append(bytes)
    var session = DexcomDownload()
    while let packet = try? assembler.nextPacket() {
        let request = DexcomPacket(code: packet.payload.first ?? 0, payload: Array(packet.payload.dropFirst()))
        attempt { try session.absorb(request: request, reply: packet, hostTime: nil, where: "fuzz") }
    }
    attempt { try DexcomPacket.decode(bytes, location: "fuzz") }
}

/// IEEE 11073-20601 APDUs from an Accu-Chek meter: a byte stream cut into APDUs and read as a
/// session (configuration, MDS attributes, segment info and data, BCD times, SFLOAT values), the
/// whole input as one APDU, and every APDU that decodes encoding back to the same APDU.
func phdAPDU(_ bytes: [UInt8]) {
    var assembler = PHDAPDUAssembler()
    assembler.append(bytes)
    var session = AccuChekSession()
    while let apdu = assembler.next() {
        guard let decoded = try? PHDAPDU.decode(apdu) else { continue }
        precondition((try? PHDAPDU.decode(decoded.encoded())) == decoded, "an APDU does not survive encoding")
        if (try? session.absorb(decoded, hostTime: nil)) == nil { break }
    }
    attempt { try session.normalised() }
    attempt { try PHDAPDU.decode(bytes) }
}

/// A OneTouch Verio's register blocks: pieces, each a selector byte and a block. Each block is
/// read as a LifeScan frame and, when it is one, as the reply to the command the selector picks
/// (strings, the unit, the clock, the count, records); the download is then made. (A recorded
/// Verio session is decoded passively by the `replay` target.)
func verioFrame(_ bytes: [UInt8]) {
    let commands: [VerioCommand] = [.query(.serial), .query(.model), .readUnit, .readClock, .recordCount, .record(0), .record(1)]
    var session = VerioSession()
    for piece in pieces(bytes) {
        guard let selector = piece.first else { continue }
        let block = Array(piece.dropFirst())
        if let message = try? VerioFrame.decode(block, reply: "fuzz") {
            attempt { try session.absorb(commands[Int(selector) % commands.count], message: message, hostTime: nil, reply: "fuzz") }
        }
    }
    attempt { try session.normalised() }
    attempt { try VerioFrame.decode(bytes, reply: "fuzz") }
}

/// A Huami band's fetch as the driver reads it: byte 0 picks the sample form (odd: 8 bytes) and
/// whether the fetch types are known (bit 1 set: listening, each fetch judged from its data), then pieces whose first byte says what each is (0: an activity data packet, 1: a fetch
/// control point answer, 2: an authentication answer); the whole samples are then placed in time.
/// The whole input is also read as a sports summary and as a sports detail.
func huami(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let form: HuamiSampleForm = first & 1 == 1 ? .extended : .short
    var log = HuamiFetchLog()
    for piece in pieces(Array(bytes.dropFirst())) {
        guard let kind = piece.first else { continue }
        let value = Array(piece.dropFirst())
        switch kind % 3 {
        case 0: log.packet(value)
        case 1: if let answer = try? HuamiFetchAnswer.decode(value) { log.answer(answer, form: form, type: first & 2 == 2 ? nil : 0x01) }
        default: attempt { try HuamiAuthMessage.decodeAnswer(value) }
        }
    }
    log.cut(form: form)
    for fetch in log.fetches {
        _ = fetch.summary
        _ = fetch.end
        for (offset, sample) in fetch.samples.enumerated() {
            _ = fetch.startInstant.addingTimeInterval(TimeInterval(offset * 60))
            _ = sample.beatsPerMinute
        }
    }
    _ = HuamiActivitySample.samples(in: bytes, form: form)
    if let summary = try? HuamiWorkoutSummary.decode(bytes) {
        _ = summary.kind
        _ = summary.elapsed
        _ = summary.bytes
    }
    if let detail = try? HuamiWorkoutDetail.decode(bytes) {
        _ = detail.heartRates
        precondition(detail.bytes == bytes, "a sports detail's records re-encode to its bytes")
    }
}

/// A PineTime's reads as the InfiniTime driver takes them: pieces whose first byte says what each
/// is (even: a Current Time value, odd: a step count value, read that many seconds after the one
/// before), then the step ledger from a stored cursor made of the first eight bytes.
func infiniTime(_ bytes: [UInt8]) {
    var stored: InfiniTimeStepCursor?
    if bytes.count >= 8 {
        let head = bytes.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        stored = InfiniTimeStepCursor(steps: head & 0x00FF_FFFF_FFFF_FFFF, day: Int64(bytes[0]) * 100 + 19_000)
    }
    var host = Date(timeIntervalSince1970: 1_714_564_805)
    var offset: Double?
    var reads: [InfiniTimeStepRead] = []
    for piece in pieces(bytes) {
        guard let kind = piece.first else { continue }
        let value = Array(piece.dropFirst())
        host = host.addingTimeInterval(Double(kind))
        if kind % 2 == 0 {
            if let time = try? CurrentTime.decode(value), let watch = time.wallClockSeconds {
                offset = watch - host.timeIntervalSince1970
                _ = time.bytes
            }
        } else if let steps = try? InfiniTimeStepCount.decode(value), let offset {
            reads.append(InfiniTimeStepRead(hostTime: host, watchClock: host.timeIntervalSince1970 + offset, steps: steps))
        }
    }
    var ledger = InfiniTimeStepLedger(stored: stored)
    ledger.take(reads)
    for minute in ledger.minutes where minute.steps < 0 { fatalError("negative steps: \(minute)") }
    _ = ledger.cursor?.cursors
}

/// The target `FUZZ_TARGET` names.
let selectedName = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""

/// The folder and store every `replay` run imports into (imports are idempotent, so it grows
/// little); made on first use, only for that target.
let replayPlace: (folder: URL, store: SharedStore)? = {
    guard selectedName == "replay" else { return nil }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glucobridge-fuzz-\(getpid())")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    guard let store = try? SharedStore(path: folder.appendingPathComponent("store.sqlite").path, timeZone: TimeZone(identifier: "UTC"))
    else { return nil }
    return (folder, store)
}()

/// The whole path: capture bytes in a file, replayed into a real store through the one import
/// pipeline (which tells a btsnoop file from a USB capture by its content).
func replay(_ bytes: [UInt8]) {
    guard let (folder, store) = replayPlace else { return }
    let file = folder.appendingPathComponent("input.capture")
    guard (try? Data(bytes).write(to: file)) != nil else { return }
    attempt { try Importer(store: store).run(.capture(file), context: ImportContext(budget: .seconds(10))) }
}

let targets: [String: @Sendable ([UInt8]) -> Void] = [
    "pcap": { bytes in attempt { try USBCaptureReader.parse(bytes, name: "fuzz") } },
    "pcapng": { bytes in attempt { try USBCaptureReader.parse(bytes, name: "fuzz") } },
    "transcript": { bytes in
        attempt { () throws -> Void in
            let capture = try USBCaptureReader.parse(bytes, name: "fuzz")
            for device in RecordedUSBDevice.devices(in: capture) { _ = device.exchanges }
        }
    },
    "usbmon": { bytes in attempt { try USBCaptureReader.parse(pcap(link: 220, packets: pieces(bytes)), name: "fuzz") } },
    "usbpcap": { bytes in attempt { try USBCaptureReader.parse(pcap(link: 249, packets: pieces(bytes)), name: "fuzz") } },
    "btsnoop": { bytes in
        attempt { () throws -> Void in
            let file = try BTSnoopReader.parse(bytes, name: "fuzz")
            _ = try LECapture(file)
        }
    },
    "hci": { bytes in
        guard let first = bytes.first, let type = HCIPacketType(rawValue: first & 0x07) else { return }
        attempt { () throws -> Void in
            if case .event(let code, let parameters) = try HCIPacket.decode(type: type, bytes: Array(bytes.dropFirst())) {
                _ = try HCIEvent(code: code, parameters: parameters)
            }
        }
    },
    "l2cap": { bytes in
        var reassembler = L2CAPReassembler()
        for piece in pieces(bytes) {
            guard case .acl(let packet)? = try? HCIPacket.decode(type: .acl, bytes: piece) else { continue }
            if let frame = try? reassembler.add(packet), frame.channel == L2CAPFrame.attChannel {
                attempt { try ATTPDU(bytes: frame.payload) }
            }
        }
    },
    "att": { bytes in attempt { try ATTPDU(bytes: bytes) } },
    "dexcom-packet": { bytes in dexcom(bytes, asPages: false) },
    "dexcom-page": { bytes in dexcom(bytes, asPages: true) },
    "freestyle-text": freeStyleText,
    "freestyle-handshake": freeStyleHandshake,
    "freestyle-encrypted": freeStyleEncrypted,
    "freestyle-binary": { bytes in
        attempt { try LibreATPFrame.decode(bytes, location: "fuzz") }
        attempt { try LibreAAPPacket.decodeAll(bytes, location: "fuzz") }
    },
    "astm": astm,
    "fit": { bytes in
        guard let file = try? FITDecoder.decode(bytes, name: "fuzz.fit") else { return }
        attempt { try FITActivityFile(file) }
    },
    "phd-apdu": phdAPDU,
    "verio-frame": verioFrame,
    "ble-values": bleValue,
    "huami": huami,
    "infinitime": infiniTime,
    "replay": replay,
]

/// The target run on every input.
let selected = targets[selectedName]

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> CInt {
    let environment = ProcessInfo.processInfo.environment
    if let folder = environment["FUZZ_SEEDS"], let fixtures = environment["FUZZ_FIXTURES"] {
        do {
            try Seeds.write(into: URL(fileURLWithPath: folder), fixtures: URL(fileURLWithPath: fixtures))
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("cannot write the seeds: \(error)\n".utf8))
            exit(1)
        }
    }
    guard selected != nil else {
        FileHandle.standardError.write(Data("set FUZZ_TARGET to one of: \(targets.keys.sorted().joined(separator: " "))\n".utf8))
        exit(2)
    }
    if selectedName == "replay", replayPlace == nil {
        FileHandle.standardError.write(Data("cannot make the replay target's store\n".utf8))
        exit(1)
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selected?(bytes)
    return 0
}
