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

/// Live sessions with the simulated reader, and damaged replies: a clear error, and nothing
/// stored.
final class FreeStyleBehaviourTests: XCTestCase {
    /// Rows of every table an import writes: a failed import leaves them all as they were.
    func counts(_ store: SharedStore) throws -> [Int] {
        try store.database.read { db in
            try ["day", "glucose", "source", "import_run", "source_cursor"].map { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)")! }
        }
    }

    /// A Precision Neo (synthetic rows in the `$result?` layout) with an interrupt OUT endpoint.
    func neo(records: [String]) -> FreeStyleReaderSimulator {
        FreeStyleReaderSimulator(
            productID: 0x3850, outEndpoint: true, serial: "CBGT000-N0002", softwareVersion: "1.04", date: "5,2,24", time: "18,30",
            records: ["$result?": records], hostClock: { ISO8601DateFormatter().date(from: "2024-05-02T16:30:20Z")! })
    }

    let neoRows = [
        "7,88,5,2,24,18,5,1,HI,0,0,0,0,0,0,0,0,0,0",
        "9,87,5,2,24,7,30,1,27,0,0",
        "10,86,5,2,24,7,29,1,4,0,0,0",
        "7,85,5,1,24,22,10,1,LO,0,0,0,0,0,0,0,0,0,0",
        "7,84,5,1,24,12,0,1,104,0,0,0,0,0,0,0,0,0,0",
        "3,83,5,1,24,11,0,1",
    ]

    /// HI / LO are flags (stored at the reader limits), ketones and insulin are counted, unknown
    /// row types are counted; reports go to the OUT endpoint when there is one; keep-alives
    /// between the reports of a reply are skipped.
    func testNeoSession() throws {
        let store = try makeStore(zone: "Europe/Berlin").0
        let reader = neo(records: neoRows)
        reader.lineReports = true
        reader.keepAliveWithinReplies = 2
        let outcome = try Importer(store: store).importOne(over: reader, driver: FreeStyleDriver.self, origin: "simulated")
        XCTAssertEqual(reader.setReportsReceived, 0)
        XCTAssertEqual(reader.messagesReceived.count, 8)
        XCTAssertEqual(reader.claimed, [], "closed after the session")
        XCTAssertEqual(outcome.source, DeviceSource(family: "freestyle", serial: "CBGT000-N0002", model: "FreeStyle Precision / Optium Neo"))
        XCTAssertEqual(outcome.summary.added, 3)
        XCTAssertEqual(
            outcome.events,
            [
                ImportEvent(name: "insulin-entry", count: 1), ImportEvent(name: "ketone-strip", count: 1),
                ImportEvent(name: "result-row-type-3", count: 1),
            ])
        // Reader 18:30 wall (16:30Z in Berlin summer time), host 16:30:20Z: within the reader's
        // one-minute resolution, so no clock error; its wall times are read in Berlin.
        XCTAssertEqual(outcome.clock.offsetSeconds, 0)
        XCTAssertEqual(outcome.clock.wallClock, .correctedLocalTime)
        let stored = try store.glucose()
        XCTAssertEqual(stored.map(\.mgdl), [104, 40, 500])
        XCTAssertEqual(stored.map(\.flag), [nil, .belowRange, .aboveRange])
        XCTAssertEqual(stored.map(\.tag), [.inRange, .hypoLevel2, .hyperLevel2])
        XCTAssertEqual(stored.map(\.kind), [.fingerstick, .fingerstick, .fingerstick])
        XCTAssertEqual(stored.map(\.time), [utc("2024-05-01T10:00:00Z"), utc("2024-05-01T20:10:00Z"), utc("2024-05-02T16:05:00Z")])
        XCTAssertEqual(stored.map(\.displayTime), ["2024-05-01T12:00:00", "2024-05-01T22:10:00", "2024-05-02T18:05:00"])
    }

    func testKetonesAreKeptApart() throws {
        let session = try FreeStyleDriver.readSession(over: neo(records: neoRows))
        XCTAssertEqual(session.ketones.count, 1)
        XCTAssertEqual(try XCTUnwrap(session.ketones.first?.mmol), 1.5, accuracy: 1e-9)
        XCTAssertEqual(session.textSerial, "CBGT000-N0002")
        XCTAssertEqual(session.softwareVersion, "1.04")
        XCTAssertEqual(session.verifiedReplies, 4)
    }

    /// A reader that answers text commands with `33 01 15` (encryption not set up) is refused,
    /// whatever its product id says.
    func testEncryptedTrafficIsRefused() throws {
        let store = try makeStore(zone: "Europe/Berlin").0
        let reader = FreeStyleDemo.reader()
        reader.encrypted = true
        XCTAssertThrowsError(try Importer(store: store).importOne(over: reader, driver: FreeStyleDriver.self, origin: "simulated")) { error in
            XCTAssertEqual(
                "\(error)",
                "the FreeStyle Libre 2 / Libre 3 reader wants an encrypted session (it answered 33 01 15) that was not set up; nothing was stored")
        }
        XCTAssertEqual(try counts(store), [0, 0, 0, 0, 0])
    }

    /// A reader whose clock lost power answers 255s: reported, and not used to place readings.
    func testUnsetReaderClock() throws {
        let store = try makeStore(zone: "Europe/Berlin").0
        let reader = FreeStyleDemo.reader()
        reader.date = "255,255,255"
        reader.time = "255,255"
        let outcome = try Importer(store: store).importOne(over: reader, driver: FreeStyleDriver.self, origin: "simulated")
        XCTAssertEqual(outcome.clock.method, .deviceLocalTime)
        XCTAssertNil(outcome.clock.offsetSeconds)
        XCTAssertNil(outcome.clock.deviceTime)
        XCTAssertTrue(
            outcome.notes.contains(
                "the reader's clock is not set (it answers 255, as after losing power): it was not trusted, and its offset from the host clock is unknown"
            ), "\(outcome.notes)")
        XCTAssertTrue(outcome.notes.contains("the device's clock was not read: record times were read as local time in Europe/Berlin"))
        // Wall clock 09:16:05 in Berlin (UTC+1).
        XCTAssertEqual(try store.glucose().last?.time, utc("2025-03-14T08:16:05Z"))
        let run = try XCTUnwrap(try store.importRuns(limit: 1).first)
        XCTAssertNil(run.clock.offsetSeconds)
        XCTAssertNil(run.clock.deviceTime)
        XCTAssertEqual(run.events.first { $0.name == "time-change" }?.count, 1)
    }

    /// Bad CKSM: the error names the command; nothing is stored, not even the good replies before it.
    func testBadChecksumStoresNothing() throws {
        let store = try makeStore(zone: "Europe/Berlin").0
        let reader = FreeStyleDemo.reader()
        // One digit of a glucose value changed in flight: 126 → 127.
        reader.damage["$arresult?"] = { bytes in
            var bytes = bytes
            let text = Array("8,50,2,1,2,0,0,126".utf8)
            let at = bytes.indices.first { bytes[$0...].starts(with: text) }!
            bytes[at + text.count - 1] = UInt8(ascii: "7")
            return bytes
        }
        XCTAssertThrowsError(try Importer(store: store).importOne(over: reader, driver: FreeStyleDriver.self, origin: "simulated")) { error in
            guard case .driver(let inner) = error as? ImportError, case FreeStyleError.checksumMismatch("$arresult?", "CKSM", _, _) = inner else {
                return XCTFail("\(error)")
            }
            XCTAssertTrue("\(error)".hasPrefix("the reply to $arresult? is corrupt: its CKSM checksum says "), "\(error)")
        }
        XCTAssertEqual(try counts(store), [0, 0, 0, 0, 0])
    }

    /// A record lost in flight with the CKSM made to match: the `N,<checksum>` trailer catches it.
    func testBadTrailerStoresNothing() throws {
        let store = try makeStore(zone: "Europe/Berlin").0
        let reader = FreeStyleDemo.reader()
        reader.damage["$history?"] = { bytes in
            var text = String(decoding: bytes, as: UTF8.self)
            text = text.replacingOccurrences(of: "409,12,3,14,25,8,31,5,1,0,0,0,0,131,7201,0\r\n", with: "")
            let message = Array(text[..<text.range(of: "CKSM:")!.lowerBound].utf8)
            return message + Array("CKSM:\(String(format: "%08X", FreeStyleText.checksum(message)))\r\nCMD OK\r\n".utf8)
        }
        XCTAssertThrowsError(try Importer(store: store).importOne(over: reader, driver: FreeStyleDriver.self, origin: "simulated")) { error in
            XCTAssertTrue("\(error)".hasPrefix("the reply to $history? is corrupt: its record trailer checksum says "), "\(error)")
        }
        XCTAssertEqual(try counts(store), [0, 0, 0, 0, 0])
    }

    /// The synthetic capture's conversation as a transcript, damaged by `edit`, replayed with the
    /// FreeStyle driver named.
    func replayDamagedTranscript(_ edit: (inout [String]) -> Void) throws -> (Error, SharedStore) {
        let device = try XCTUnwrap(
            RecordedUSBDevice.devices(in: try USBCaptureReader.read(contentsOf: Fixtures.url("freestyle/libre-synthetic.pcap"))).first)
        var lines = device.conversation.map { ($0.direction == .out ? "out," : "in,") + Hex.encode($0.data) }
        edit(&lines)
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("damaged.txt")
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        let store = try makeStore(zone: "Europe/Berlin").0
        do {
            _ = try Importer(store: store).replayOne(captureAt: url, driverName: "freestyle")
        } catch {
            return (error, store)
        }
        XCTFail("the damaged transcript was imported")
        return (CocoaError(.featureUnsupported), store)
    }

    /// The index of the first reader report carrying `text`.
    func line(carrying text: String, in lines: [String]) -> Int {
        let hex = Hex.encode(Array(text.utf8))
        return lines.firstIndex { $0.hasPrefix("in,") && $0.contains(hex) }!
    }

    func testTruncatedReportStoresNothing() throws {
        let (error, store) = try replayDamagedTranscript { lines in
            let index = line(carrying: "412,12,3,14", in: lines)
            lines[index] = String(lines[index].prefix(3 + 20 * 3 - 1))  // "in," and 20 bytes
        }
        XCTAssertEqual(
            "\(error)",
            "bad FreeStyle HID report from the reader answering $history? at capture packet 19: length byte 62 needs 64 bytes but the report has 20 (truncated)"
        )
        XCTAssertEqual(try counts(store), [0, 0, 0, 0, 0])
    }

    func testUnknownMessageTypeStoresNothing() throws {
        let (error, store) = try replayDamagedTranscript { lines in
            let index = line(carrying: "1205,2,3,14", in: lines)
            lines[index] = "in,99" + lines[index].dropFirst(5)
        }
        XCTAssertEqual("\(error)", "unexpected FreeStyle message type 0x99 answering $arresult?; expected text replies (0x60)")
        XCTAssertEqual(try counts(store), [0, 0, 0, 0, 0])
    }

    func testReaderRefusingAMessageStoresNothing() throws {
        let (error, store) = try replayDamagedTranscript { lines in
            let index = line(carrying: "3,14,25\r\n", in: lines)
            lines[index] = "in,30 01 85" + String(repeating: " 00", count: 61)
        }
        XCTAssertEqual("\(error)", "the reader does not know the message $date? (it answered 30 01 85)")
        XCTAssertEqual(try counts(store), [0, 0, 0, 0, 0])
    }

    /// A reply the capture cuts off before `CMD OK`.
    func testReplyCutShortStoresNothing() throws {
        let (error, store) = try replayDamagedTranscript { lines in
            let index = line(carrying: "1205,2,3,14", in: lines)
            lines.removeSubrange((index + 1)...)
        }
        XCTAssertTrue("\(error)".hasPrefix("the reply to $arresult? stopped after "), "\(error)")
        XCTAssertEqual(try counts(store), [0, 0, 0, 0, 0])
    }
}
