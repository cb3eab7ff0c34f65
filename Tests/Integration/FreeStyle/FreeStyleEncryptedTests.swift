import CaptureUSB
import Drivers
import Foundation
import GRDB
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import Transport
import TransportReplay
import XCTest

/// The Libre 2 / Libre 3 encrypted session: the simulated reader and the driver, live, recorded
/// and replayed (by conversation, and passively from another host's capture); damaged captures
/// refused with the packet named and nothing stored.
final class FreeStyleEncryptedTests: XCTestCase {
    static var testKeys: FreeStyleKeys { FreeStyleTestKeys.keys }

    func counts(_ store: SharedStore) throws -> [Int] {
        try store.database.read { db in
            try ["day", "glucose", "source", "import_run", "source_cursor"].map { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)")! }
        }
    }

    /// The keys as glucobridge finds them on this machine (the tests that go through the importer,
    /// which looks for them itself): skipped without them.
    func installedKeys() throws -> FreeStyleKeys {
        do {
            return try FreeStyleKeys.locate()
        } catch {
            throw XCTSkip("no FreeStyle Libre 2 keys on this machine (pip install freestyle-keys): \(error)")
        }
    }

    static func testKeysSource() throws(FreeStyleError) -> FreeStyleKeys { testKeys }

    // MARK: - Keys

    func testKeyFile() throws {
        let text = """
            \"\"\"A copy of freestyle_keys/libre2.py keeps its docstring; it is ignored.\"\"\"
            AUTHORIZATION_ENCRYPTION_KEY = 0x00112233445566778899aabbccddeeff
            AUTHORIZATION_MAC_KEY = 0x0f1e2d3c4b5a69788796a5b4c3d2e1f0  # a comment
            SESSION_ENCRYPTION_KEY=0x13579bdf02468ace13579bdf02468ace
            SESSION_MAC_KEY = 0xfedcba98765432100123456789abcdef
            """
        var parsed = try FreeStyleKeys.parse(text, origin: "keys.txt")
        parsed.origin = "the tests"
        XCTAssertEqual(parsed, Self.testKeys)
        XCTAssertThrowsError(try FreeStyleKeys.parse("AUTHORIZATION_MAC_KEY = 0x1\n", origin: "keys.txt")) { error in
            XCTAssertTrue("\(error)".contains("keys.txt lacks AUTHORIZATION_ENCRYPTION_KEY, SESSION_ENCRYPTION_KEY, SESSION_MAC_KEY"), "\(error)")
        }
        XCTAssertThrowsError(try FreeStyleKeys.parse(text.replacingOccurrences(of: "0x13579bdf", with: "0x1357zbdf"), origin: "keys.txt")) { error in
            XCTAssertTrue("\(error)".contains("keys.txt line 4: SESSION_ENCRYPTION_KEY is not a 128-bit hex number"), "\(error)")
        }
    }

    func testKeysAreLookedForInTheConfigurationFolder() throws {
        let home = try Fixtures.temporaryDirectory()
        let environment = ["HOME": home.path, "PATH": ""]
        XCTAssertEqual(
            FreeStyleKeys.keyFiles(environment: environment),
            [
                home.path + "/.config/glucobridge/freestyle-libre2.keys", "/etc/glucobridge/freestyle-libre2.keys",
            ])
        XCTAssertEqual(FreeStyleKeys.keyFiles(environment: ["HOME": "/h", "XDG_CONFIG_HOME": "/c"]).first, "/c/glucobridge/freestyle-libre2.keys")
        XCTAssertThrowsError(try FreeStyleKeys.locate(environment: environment)) { error in
            XCTAssertTrue("\(error)".contains("pip install freestyle-keys"), "\(error)")
            XCTAssertTrue("\(error)".contains(home.path + "/.config/glucobridge/freestyle-libre2.keys"), "\(error)")
        }
        let folder = home.appendingPathComponent(".config/glucobridge")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(
            """
            AUTHORIZATION_ENCRYPTION_KEY = 0x00112233445566778899aabbccddeeff
            AUTHORIZATION_MAC_KEY = 0x0f1e2d3c4b5a69788796a5b4c3d2e1f0
            SESSION_ENCRYPTION_KEY = 0x13579bdf02468ace13579bdf02468ace
            SESSION_MAC_KEY = 0xfedcba98765432100123456789abcdef
            """.utf8
        ).write(to: folder.appendingPathComponent("freestyle-libre2.keys"))
        let found = try FreeStyleKeys.locate(environment: environment)
        XCTAssertEqual(found.origin, folder.appendingPathComponent("freestyle-libre2.keys").path)
        XCTAssertEqual(found.sessionMAC, Self.testKeys.sessionMAC)
    }

    /// The installed freestyle-keys package, read through python3, gives the same keys as its
    /// module's constants.
    func testKeysFromThePythonPackage() throws {
        let printed = try FreeStyleOracle.run(
            "from freestyle_keys import libre2 as k\nprint('%032x' % k.SESSION_MAC_KEY)", needing: ["freestyle_keys"])
        let home = try Fixtures.temporaryDirectory()
        let keys = try FreeStyleKeys.locate(environment: ["HOME": home.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
        XCTAssertEqual(keys.origin, "the freestyle-keys Python package")
        XCTAssertEqual(keys.sessionMAC, SpeckKey(hex: printed.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// Without keys a Libre 2 is sent nothing, and the message says how to get them.
    func testLibre2WithoutKeysFailsBeforeSending() throws {
        let reader = FreeStyleDemo.encryptedReader(keys: Self.testKeys)
        let home = try Fixtures.temporaryDirectory()
        XCTAssertThrowsError(
            try FreeStyleDriver.readSession(
                over: reader,
                keys: { () throws(FreeStyleError) in
                    try FreeStyleKeys.locate(environment: ["HOME": home.path, "PATH": ""])
                })
        ) { error in
            XCTAssertTrue("\(error)".hasPrefix("FreeStyle Libre 2 / Libre 3 readers need keys, found in none of:"), "\(error)")
            XCTAssertTrue("\(error)".contains("Nothing was sent to the reader"), "\(error)")
            XCTAssertTrue("\(error)".contains("pip install freestyle-keys"), "\(error)")
        }
        XCTAssertEqual(reader.messagesReceived, [])
        XCTAssertEqual(reader.claimed, [])
    }

    // MARK: - Live

    /// The driver against the simulated reader: the handshake, then every text reply sealed, the
    /// host's commands (0x60, as glucometerutils sends them) sealed too.
    func testLiveLibre2Session() throws {
        let reader = FreeStyleDemo.encryptedReader(keys: Self.testKeys)
        let session = try FreeStyleDriver.readSession(over: reader, keys: Self.testKeysSource, hostNonce: { _ in Array(0xA0..<0xA8) })
        XCTAssertEqual(reader.hostNonce, Array(0xA0..<0xA8))
        XCTAssertEqual(reader.messagesReceived.map(\.type), [0x05, 0x14, 0x14, 0x01, 0x60, 0x60, 0x60, 0x60, 0x60])
        XCTAssertEqual(
            reader.messagesReceived.suffix(5).map { String(decoding: $0.payload, as: UTF8.self) },
            ["$sn?\r\n", "$date?\r\n", "$time?\r\n", "$history?\r\n", "$arresult?\r\n"])
        XCTAssertEqual(session.model, .libre2)
        XCTAssertEqual(session.hidSerial, "MAGA987-J0123")
        XCTAssertEqual(session.textSerial, "MAGA987-J0123")
        XCTAssertEqual(session.verifiedReplies, 5)
        let download = try session.normalised()
        XCTAssertEqual(download.glucose.map(\.value), [112, 118, 131, 38, 64, 115, 96, 500])
        XCTAssertEqual(download.source, DeviceSource(family: "freestyle", serial: "MAGA987-J0123", model: "FreeStyle Libre 2"))
    }

    /// Different keys on the two sides: the reader refuses the challenge response (33 01 14), and
    /// the message says the keys are not the reader's.
    func testWrongKeysAreRefusedByTheReader() throws {
        var otherKeys = Self.testKeys
        otherKeys.authorizationMAC = SpeckKey(high: 1, low: 2)
        let reader = FreeStyleDemo.encryptedReader(keys: otherKeys)
        XCTAssertThrowsError(try FreeStyleDriver.readSession(over: reader, keys: Self.testKeysSource)) { error in
            XCTAssertEqual(
                "\(error)",
                "the encrypted session's handshake failed answering the challenge response (14 1A 17) of reader MAGA987-J0123: the reader refused the challenge response (33 01 14): the keys are not the reader's; nothing was stored"
            )
        }
        XCTAssertEqual(reader.messagesReceived.map(\.type), [0x05, 0x14, 0x14])
    }

    /// A reader whose HID serial query answers another serial than its own derives other keys.
    func testWrongSerialIsRefused() throws {
        let reader = FreeStyleDemo.encryptedReader(keys: Self.testKeys)
        reader.hidSerial = "MAGA987-J0124"
        XCTAssertThrowsError(try FreeStyleDriver.readSession(over: reader, keys: Self.testKeysSource)) { error in
            XCTAssertTrue("\(error)".contains("the keys are not the reader's"), "\(error)")
        }
    }

    /// A report whose MAC was changed on the way is refused, naming the command it answered.
    func testCorruptedMACLive() throws {
        let reader = FreeStyleDemo.encryptedReader(keys: Self.testKeys)
        reader.reportFilter = { report, _ in
            guard report[0] == 0x60 else { return report }
            var changed = report
            changed[63] ^= 0x01
            return changed
        }
        XCTAssertThrowsError(try FreeStyleDriver.readSession(over: reader, keys: Self.testKeysSource)) { error in
            XCTAssertTrue("\(error)".hasPrefix("the encrypted report from the reader answering $sn? is corrupt or forged: its MAC says"), "\(error)")
        }
    }

    /// The Libre 3 reader: the same session, and rows without the columns the Libre 3 lacks
    /// (rows as in glucometerutils pull request #131's examples).
    func testLibre3Rows() throws {
        let reader = FreeStyleDemo.encryptedReader(keys: Self.testKeys, productID: 0x3960)
        reader.records = [
            "$history?": ["243,12,1,11,25,10,23,43,1,0,0,0,85,60,0", "233,12,1,11,25,10,18,44,1,0,0,0,0,55,32768"],
            "$arresult?": [
                "7429,2,1,13,25,20,22,12,1,2,0,0,88,1,3,1,1,1,1,1,0,3,4,0,1,3,0,3538,7,1,13,25,20,22,12,1,2",
                "7415,2,1,13,25,20,15,47,1,2,0,0,93,1,3,0,0,0,0,0,0,3,0,0,0,0,0,3532",
                "7400,5,1,13,25,20,0,0,1,1,13,25,19,0,0",
            ],
        ]
        let session = try FreeStyleDriver.readSession(over: reader, keys: Self.testKeysSource)
        XCTAssertEqual(session.model, .libre3)
        let download = try session.normalised()
        XCTAssertEqual(download.source.model, "FreeStyle Libre 3")
        XCTAssertEqual(download.glucose.map(\.recordKey), ["history:243", "arresult:7429", "arresult:7415"])
        XCTAssertEqual(download.glucose.map(\.value), [85, 88, 93])
        XCTAssertEqual(download.glucose.map(\.trend), [nil, .flat, .flat])
        XCTAssertEqual(download.events, [ImportEvent(name: "sensor-reading-flagged-invalid", count: 1), ImportEvent(name: "time-change", count: 1)])
        XCTAssertEqual(download.clockChanges?.map(\.to), [FreeStyleClock.wallSeconds(year: 25, month: 1, day: 13, hour: 20, minute: 0)!])
        // The same rows read as a Libre 2's are not these values: the layouts differ.
        XCTAssertThrowsError(try FreeStyleRowsProbe.history("243,12,1,11,25,10,23,43,1,0,0,0,85,60,0", model: .libre2))
    }

    /// The demo Libre 3 reader (the lab's `usb libre3` model) holds the demo records in the Libre
    /// 3's layout: the driver reads every value the Libre reader's rows carry, and row 1204, whose
    /// error bits the Libre 3 does not send, as a reading.
    func testLibre3DemoReaderRows() throws {
        XCTAssertEqual(FreeStyleDemo.libre3History.first, "412,12,3,14,25,9,16,5,1,0,0,0,112,7246,0")
        XCTAssertEqual(FreeStyleDemo.libre3Arresult.first, "1205,2,3,14,25,9,12,40,1,2,0,0,115,1,4,0,0,0,0,0,0,0,0,0,0,0,0,0")
        let reader = FreeStyleDemo.encryptedReader(keys: Self.testKeys, productID: 0x3960)
        let session = try FreeStyleDriver.readSession(over: reader, keys: Self.testKeysSource)
        XCTAssertEqual(session.model, .libre3)
        let download = try session.normalised()
        XCTAssertEqual(download.source.model, "FreeStyle Libre 3")
        XCTAssertEqual(
            download.glucose.map(\.recordKey),
            [
                "history:412", "history:411", "history:409", "history:408", "history:407",
                "arresult:1205", "arresult:1204", "arresult:1202", "arresult:1200",
            ])
        XCTAssertEqual(download.glucose.map(\.value), [112, 118, 131, 38, 64, 115, 126, 96, 500])
        XCTAssertEqual(download.glucose.map(\.trend), [nil, nil, nil, nil, nil, .fortyFiveUp, .fortyFiveUp, nil, .singleUp])
        XCTAssertEqual(
            download.events,
            [
                ImportEvent(name: "ketone-strip", count: 1), ImportEvent(name: "sensor-reading-flagged-invalid", count: 1),
                ImportEvent(name: "time-change", count: 1),
            ])
    }

    /// A Libre 3 session across the spring DST change in Berlin, its clock moved forward by the
    /// user (a time-change record), recorded and replayed through the importer: each reading at
    /// its instant, on its Day.
    func testLibre3AcrossDSTWithTimeChange() throws {
        let keys = try installedKeys()
        var tick = 0.0
        let reader = FreeStyleReaderSimulator(
            productID: 0x3960, outEndpoint: true, serial: "MAGA987-K0456", softwareVersion: "1.0.12", date: "3,30,25", time: "10,0",
            records: [
                "$history?": [
                    "103,12,3,30,25,9,45,0,1,0,0,0,140,60,0",
                    "102,12,3,30,25,3,15,0,1,0,0,0,130,60,0",
                    "101,12,3,30,25,1,45,0,1,0,0,0,125,60,0",
                    "100,12,3,30,25,1,30,0,1,0,0,0,120,60,0",
                ],
                "$arresult?": [
                    "61,2,3,30,25,9,50,0,1,2,0,0,142,1,4,0,0,0,0,0,0,3,0,0,0,0,0,3600",
                    "60,5,3,30,25,3,0,5,1,3,30,25,2,0,5",
                    "59,2,3,29,25,23,10,0,1,2,0,0,99,1,3,0,0,0,0,0,0,3,0,0,0,0,0,3500",
                ],
            ],
            hostClock: {
                tick += 0.001
                return Date(timeIntervalSince1970: 1_743_321_600 + tick)  // 2025-03-30T08:00:00Z, 10:00 in Berlin (CEST)
            })
        reader.keys = keys
        let capture = try record(reader, keys: keys)
        let store = try makeStore(zone: "Europe/Berlin").0
        let outcome = try Importer(store: store).replayOne(captureAt: capture)
        XCTAssertEqual(outcome.replayMode, .conversation)
        XCTAssertEqual(outcome.source.model, "FreeStyle Libre 3")
        XCTAssertEqual(outcome.summary.added, 6)
        let stored = try store.glucose()
        XCTAssertEqual(stored.map(\.recordKey), ["arresult:59", "history:100", "history:101", "history:102", "history:103", "arresult:61"])
        XCTAssertEqual(stored.map(\.mgdl), [99, 120, 125, 130, 140, 142])
        // Before the change the reader's wall clock was CET (UTC+1): 23:10 → 22:10Z, 01:30 → 00:30Z.
        XCTAssertEqual(
            stored.map(\.time),
            [
                utc("2025-03-29T22:10:00Z"), utc("2025-03-30T00:30:00Z"), utc("2025-03-30T00:45:00Z"), utc("2025-03-30T01:15:00Z"),
                utc("2025-03-30T07:45:00Z"), utc("2025-03-30T07:50:00Z"),
            ])
        XCTAssertEqual(stored.map(\.day.description), ["2025-03-29"] + Array(repeating: "2025-03-30", count: 5))
        XCTAssertEqual(stored.map(\.trend), [.flat, nil, nil, nil, nil, .fortyFiveUp])
    }

    // MARK: - Recorded and replayed

    /// Records a live session with the simulated reader to a pcap, as `import --record` does.
    func record(_ reader: FreeStyleReaderSimulator, keys: FreeStyleKeys) throws -> URL {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("libre2.pcap")
        let recorder = try RecordingUSBTransport(recording: reader, to: url, clock: reader.hostClock)
        _ = try FreeStyleDriver.readSession(over: recorder, keys: { () throws(FreeStyleError) in keys })
        try recorder.finish()
        return url
    }

    /// glucobridge's own recording replays by conversation: the driver takes the host nonce the
    /// recording holds (in its challenge response), so it sends the recorded requests again.
    func testRecordingReplaysByConversation() throws {
        let keys = try installedKeys()
        let capture = try record(FreeStyleDemo.encryptedReader(keys: keys), keys: keys)
        let bytes = try Data(contentsOf: capture)
        XCTAssertNil(bytes.range(of: Data("$history?".utf8)), "the commands are encrypted")
        XCTAssertNil(bytes.range(of: Data("CMD OK".utf8)), "the replies are encrypted")
        let store = try makeStore(zone: "Europe/Berlin").0
        let outcome = try Importer(store: store).replayOne(captureAt: capture)
        XCTAssertEqual(outcome.replayMode, .conversation)
        XCTAssertEqual(outcome.source, DeviceSource(family: "freestyle", serial: "MAGA987-J0123", model: "FreeStyle Libre 2"))
        XCTAssertEqual(outcome.summary.added, 8)
        XCTAssertEqual(outcome.summary.recordsRead, 12)
        let stored = try store.glucose()
        XCTAssertEqual(stored.map(\.mgdl), [500, 96, 64, 38, 131, 118, 115, 112])
        XCTAssertEqual(stored.last?.time, utc("2025-03-14T08:18:05Z"))
        XCTAssertEqual(stored.first?.time, utc("2025-03-13T20:43:09Z"), "placed with the reader's own time-change record")
        XCTAssertEqual(try Importer(store: store).replayOne(captureAt: capture).summary.added, 0)
    }

    /// Another host's session (commands as 0x21 without line ends, sent in its own order): the capture
    /// cannot answer glucobridge's requests, so it is decoded passively with session keys derived
    /// from the nonces in its handshake.
    func testPassiveDecodeOfAnotherHostsCapture() throws {
        let keys = try installedKeys()
        let capture = try otherHostCapture(keys: keys)
        let store = try makeStore(zone: "Europe/Berlin").0
        let outcome = try Importer(store: store).replayOne(captureAt: capture)
        guard case .passive = outcome.replayMode else { return XCTFail("\(String(describing: outcome.replayMode))") }
        XCTAssertEqual(outcome.source, DeviceSource(family: "freestyle", serial: "MAGA987-J0123", model: "FreeStyle Libre 2"))
        XCTAssertEqual(try store.glucose().map(\.mgdl), [500, 96, 64, 38, 131, 118, 115, 112])
    }

    /// A host written here from `FreeStyleHandshake` alone, asking as freestyle-hid does (no line
    /// ends, `$sn?` first), recorded to a pcap.
    func otherHostCapture(keys: FreeStyleKeys) throws -> URL {
        let reader = FreeStyleDemo.encryptedReader(keys: keys)
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("other-host.pcap")
        let recorder = try RecordingUSBTransport(recording: reader, to: url, clock: reader.hostClock)
        let out = USBEndpoint(address: 0x01, type: .interrupt, maxPacketSize: 64)
        let inward = USBEndpoint(address: 0x81, type: .interrupt, maxPacketSize: 64)
        func exchange(_ report: [UInt8]) throws -> [[UInt8]] {
            try recorder.write(report, to: out, timeout: .seconds(1))
            var replies: [[UInt8]] = []
            while let read = try? recorder.read(from: inward, maxLength: 64, timeout: .seconds(1)) { replies.append(read.bytes) }
            return replies
        }
        try recorder.claimInterface(0)
        let serial = try exchange(FreeStyleMessage(type: 0x05).report).first { $0[0] == 0x06 }!
        let authorization = FreeStyleAuthorization(keys: keys, serial: Array(serial[2..<15]))
        let challengeReport = try exchange(FreeStyleHandshake.start.report).first { $0[0] == 0x33 }!
        let challenge = try FreeStyleHandshake.Challenge(FreeStyleMessage.decode(challengeReport, location: "test"), location: "test")
        let nonce: [UInt8] = [9, 8, 7, 6, 5, 4, 3, 2]
        _ = try exchange(FreeStyleHandshake.response(to: challenge, hostNonce: nonce, authorization: authorization).report)
        _ = try exchange(FreeStyleMessage(type: 0x01).report)
        let cipher = FreeStyleSessionCipher(keys: keys, serial: Array(serial[2..<15]), readerNonce: challenge.readerNonce, hostNonce: nonce)
        for command in ["$sn?", "$date?", "$time?", "$arresult?", "$history?"] {
            _ = try exchange(cipher.seal(FreeStyleMessage(type: 0x21, payload: Array(command.utf8)), counter: 0, from: .host))
        }
        try recorder.finish()
        return url
    }

    /// The capture's bytes with `change` applied to the data of the `index`th report the reader
    /// sent of type `type` (counting from 0), found in the pcap by its bytes.
    func damaged(_ url: URL, readerReportOfType type: UInt8, index: Int = 0, _ change: (inout [UInt8]) -> Void) throws -> (URL, packet: Int) {
        let capture = try USBCaptureReader.read(contentsOf: url)
        let device = try XCTUnwrap(RecordedUSBDevice.devices(in: capture).first { $0.hasDataTransfers })
        let reports = device.conversation.filter { $0.direction == .in && $0.data.first == type }
        let target = reports[index]
        var bytes = [UInt8](try Data(contentsOf: url))
        let original = target.data
        var replacement = original
        change(&replacement)
        let offsets = (0...(bytes.count - original.count)).filter { bytes[$0..<($0 + original.count)].elementsEqual(original) }
        XCTAssertEqual(offsets.count, 1, "the report is found once in the file")
        bytes.replaceSubrange(offsets[0]..<(offsets[0] + original.count), with: replacement)
        let damaged = url.deletingLastPathComponent().appendingPathComponent("damaged.pcap")
        try Data(bytes).write(to: damaged)
        return (damaged, target.packetNumber)
    }

    /// A text reply whose MAC fails: refused, naming the packet; nothing stored.
    func testCorruptedMACInCapture() throws {
        let keys = try installedKeys()
        for capture in [try record(FreeStyleDemo.encryptedReader(keys: keys), keys: keys), try otherHostCapture(keys: keys)] {
            let (damaged, packet) = try damaged(capture, readerReportOfType: 0x60, index: 3) { $0[61] ^= 0x40 }
            let store = try makeStore(zone: "Europe/Berlin").0
            XCTAssertThrowsError(try Importer(store: store).replayOne(captureAt: damaged)) { error in
                XCTAssertTrue("\(error)".hasPrefix("the encrypted report from the reader "), "\(error)")
                XCTAssertTrue("\(error)".contains("at capture packet \(packet) is corrupt or forged: its MAC says"), "\(error)")
                guard case .driver(let driverError)? = error as? ImportError, case .macMismatch(let location, _, _)? = driverError as? FreeStyleError
                else { return XCTFail("\(error)") }
                XCTAssertEqual(location.packet, packet)
            }
            XCTAssertEqual(try counts(store), [0, 0, 0, 0, 0])
        }
    }

    /// A serial number changed in the capture: the handshake's CMAC fails under its keys.
    func testWrongSerialInCapture() throws {
        let keys = try installedKeys()
        let capture = try record(FreeStyleDemo.encryptedReader(keys: keys), keys: keys)
        let (damaged, packet) = try damaged(capture, readerReportOfType: 0x06) { $0[14] = UInt8(ascii: "4") }
        let store = try makeStore(zone: "Europe/Berlin").0
        XCTAssertThrowsError(try Importer(store: store).replayOne(captureAt: damaged)) { error in
            XCTAssertTrue(
                "\(error)".contains("does not match under the keys of serial \"MAGA987-J0124\" (from the reader at capture packet \(packet))"),
                "\(error)")
            XCTAssertTrue("\(error)".contains("the encrypted session's handshake failed sent at capture packet"), "\(error)")
        }
        XCTAssertEqual(try counts(store), [0, 0, 0, 0, 0])
    }

    /// A capture cut inside the handshake, and one cut before the challenge response reached the
    /// capture but with encrypted replies after it: refused, nothing stored.
    func testCutHandshakeInCapture() throws {
        let keys = try installedKeys()
        let capture = try record(FreeStyleDemo.encryptedReader(keys: keys), keys: keys)
        let bytes = [UInt8](try Data(contentsOf: capture))
        let cuts = try CaptureCuts.boundaries(of: bytes)
        let device = try XCTUnwrap(RecordedUSBDevice.devices(in: try USBCaptureReader.read(contentsOf: capture)).first { $0.hasDataTransfers })
        let challenge = try XCTUnwrap(device.conversation.first { $0.direction == .in && $0.data.prefix(3) == [0x33, 0x10, 0x16] })
        // Packets are numbered from 1: cut right after the challenge's packet.
        let cut = capture.deletingLastPathComponent().appendingPathComponent("cut.pcap")
        try Data(bytes.prefix(cuts[challenge.packetNumber - 1])).write(to: cut)
        let store = try makeStore(zone: "Europe/Berlin").0
        XCTAssertThrowsError(try Importer(store: store).replayOne(captureAt: cut)) { error in
            XCTAssertTrue("\(error)".contains("the capture stops after the reader's challenge (33 10 16): the handshake is cut"), "\(error)")
            XCTAssertTrue("\(error)".contains("capture packet \(challenge.packetNumber)"), "\(error)")
        }
        XCTAssertEqual(try counts(store), [0, 0, 0, 0, 0])
    }
}

/// Reads one row with the driver's row layouts.
enum FreeStyleRowsProbe {
    static func history(_ row: String, model: FreeStyleModel) throws -> FreeStyleEntry {
        var session = FreeStyleSession(model: model)
        let lines = row + "\r\n"
        let checksum = String(FreeStyleText.checksum(Array(lines.utf8)), radix: 16, uppercase: true)
        let message = Array((lines + "1," + String(repeating: "0", count: 8 - checksum.count) + checksum + "\r\n").utf8)
        try session.absorb(textReply: message, command: "$history?", hostTime: nil)
        return session.entries[0]
    }
}
