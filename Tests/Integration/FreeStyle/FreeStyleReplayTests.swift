import CaptureUSB
import Drivers
import Foundation
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import Transport
import TransportReplay
import XCTest

/// FreeStyle sessions end to end into a real SQLite store: the synthetic Libre capture in
/// fixtures (recorded by glucobridge, replayed by conversation) and OpenGlucose's InsuLinx
/// capture (another program's session, GPL-2.0, read from ../shared only, decoded passively).
final class FreeStyleReplayTests: XCTestCase {
    let demo = Fixtures.url("freestyle/libre-synthetic.pcap")

    /// The committed capture is exactly what the generator records (set GLUCOBRIDGE_WRITE_FIXTURES=1
    /// to write it anew).
    func testDemoCaptureIsReproducible() throws {
        let fresh = try Fixtures.temporaryDirectory().appendingPathComponent("libre.pcap")
        try FreeStyleDemo.record(to: fresh)
        if ProcessInfo.processInfo.environment["GLUCOBRIDGE_WRITE_FIXTURES"] == "1" {
            try? FileManager.default.removeItem(at: demo)
            try FileManager.default.copyItem(at: fresh, to: demo)
        }
        XCTAssertEqual(try Data(contentsOf: fresh), try Data(contentsOf: demo))
    }

    func testDemoCaptureReplaysByConversation() throws {
        let store = try makeStore(zone: "Europe/Berlin").0
        let importer = Importer(store: store)
        let outcome = try importer.replayOne(captureAt: demo)
        XCTAssertEqual(outcome.replayMode, .conversation)
        XCTAssertEqual(outcome.captureFormat, .pcap(linkType: 220))
        XCTAssertEqual(outcome.source, DeviceSource(family: "freestyle", serial: "JCMV000-S0001", model: "FreeStyle Libre"))
        XCTAssertEqual(outcome.summary.recordsRead, 12)
        XCTAssertEqual(outcome.summary.added, 8)
        XCTAssertEqual(outcome.summary.skipped, 4)
        XCTAssertEqual(
            outcome.events,
            [
                ImportEvent(name: "ketone-strip", count: 1), ImportEvent(name: "result-flagged-invalid", count: 1),
                ImportEvent(name: "sensor-reading-flagged-invalid", count: 1), ImportEvent(name: "time-change", count: 1),
            ])
        XCTAssertTrue(
            outcome.notes.contains {
                $0.hasPrefix("applied the logged clock change arresult:1201 from 2025-03-13T21:00:00 to 2025-03-13T22:00:00 (+1 h 0 min)")
            }, "\(outcome.notes)")
        // The reader's clock (09:30 wall, 08:30Z in Berlin) is two minutes behind the host's.
        XCTAssertEqual(outcome.clock.method, .hostAnchored)
        XCTAssertEqual(outcome.clock.wallClock, .changeLog)
        XCTAssertEqual(try XCTUnwrap(outcome.clock.offsetSeconds), 120, accuracy: 0.5)
        XCTAssertEqual(outcome.clock.deviceTime, utc("2025-03-14T08:30:00Z"))

        let stored = try store.glucose()
        XCTAssertEqual(
            stored.map(\.recordKey),
            [
                "arresult:1200", "arresult:1202", "history:407", "history:408", "history:409", "history:411", "arresult:1205", "history:412",
            ])
        XCTAssertEqual(stored.map(\.mgdl), [500, 96, 64, 38, 131, 118, 115, 112])
        XCTAssertEqual(stored.map(\.kind), [.sensor, .fingerstick, .sensor, .sensor, .sensor, .sensor, .sensor, .sensor])
        XCTAssertEqual(stored.map(\.flag), [.aboveRange, nil, nil, .belowRange, nil, nil, nil, nil])
        XCTAssertEqual(stored.map(\.trend), [.singleUp, nil, nil, nil, nil, nil, .fortyFiveUp, nil])
        // Wall clock 09:16:05 read 13 min 55 s before the reader's 09:30: host 08:32:00Z − 13:55.
        XCTAssertEqual(stored.last?.time, utc("2025-03-14T08:18:05Z"))
        XCTAssertEqual(stored.last?.displayTime, "2025-03-14T09:16:05")
        XCTAssertEqual(stored[1].time, utc("2025-03-14T06:57:12Z"))
        // Before the logged change the clock was an hour further behind: 20:41:09 wall at UTC−00:02.
        XCTAssertEqual(stored.first?.time, utc("2025-03-13T20:43:09Z"))
        XCTAssertEqual(stored.map(\.day.description), ["2025-03-13"] + Array(repeating: "2025-03-14", count: 7))
        XCTAssertEqual(try store.cursor(source: outcome.source, stream: "history"), 412)
        XCTAssertEqual(try store.cursor(source: outcome.source, stream: "arresult"), 1205)

        // A second replay takes only records after the stored cursors: none.
        let again = try importer.replayOne(captureAt: demo)
        XCTAssertEqual(again.summary.added, 0)
        XCTAssertEqual(again.summary.recordsRead, 0)
        XCTAssertEqual(try store.glucose().count, 8)
    }

    /// The reader is sent the init sequence and queries only, each as a SET_REPORT (the simulated
    /// Libre, like the InsuLinx, has no OUT endpoint).
    func testRecordedSessionHoldsOnlyQueries() throws {
        let device = try XCTUnwrap(RecordedUSBDevice.devices(in: try USBCaptureReader.read(contentsOf: demo)).first)
        XCTAssertEqual(device.description.idString, "1a61:3650")
        let sent = device.conversation.filter { $0.direction == .out }
        XCTAssertTrue(sent.allSatisfy { $0.type == .control && $0.setup == HIDChannel.setReport(interface: 0, length: 64).bytes })
        let messages = try sent.map { try FreeStyleMessage.decode($0.data, location: "test") }
        XCTAssertEqual(messages.prefix(4).map(\.type), [0x04, 0x05, 0x15, 0x01])
        XCTAssertEqual(
            messages.dropFirst(4).map { String(decoding: $0.payload, as: UTF8.self) },
            ["$sn?\r\n", "$date?\r\n", "$time?\r\n", "$history?\r\n", "$arresult?\r\n"])
        // Keep-alives and stale bytes are in the capture and were skipped.
        let received = try device.conversation.filter { $0.direction == .in }.map { try FreeStyleMessage.decode($0.data, location: "test") }
        XCTAssertEqual(received.filter(\.isKeepAlive).count, 3)
    }

    /// OpenGlucose's UsbSnoop capture of Abbott's software reading an InsuLinx, as a transcript of
    /// 64-byte reports: the vendor sends its init messages before reading their replies, so the
    /// capture is decoded passively.
    func testInsuLinxVendorSession() throws {
        guard let vector = Fixtures.sharedVector("freestyle/openglucose-insulinx/session-messages.txt") else {
            throw XCTSkip("../shared is absent")
        }
        let transcript = try Fixtures.temporaryDirectory().appendingPathComponent("insulinx.txt")
        try FreeStyleTranscripts.fromSessionMessages(try String(contentsOf: vector, encoding: .utf8)).write(
            to: transcript, atomically: true, encoding: .utf8)

        let store = try makeStore(zone: "Europe/Paris").0
        let importer = Importer(store: store)
        let outcome = try importer.replayOne(captureAt: transcript)
        guard case .passive = outcome.replayMode else { return XCTFail("expected passive replay, got \(String(describing: outcome.replayMode))") }
        XCTAssertEqual(outcome.captureFormat, .transcript)
        XCTAssertEqual(outcome.notes.first, "no device descriptors in the capture; the traffic was recognised as freestyle")
        XCTAssertEqual(outcome.source, DeviceSource(family: "freestyle", serial: "JAGT241-U6242"))
        XCTAssertEqual(outcome.summary.recordsRead, 237)
        XCTAssertEqual(outcome.summary.added, 227)
        XCTAssertEqual(outcome.events, [ImportEvent(name: "result-row-type-4", count: 6), ImportEvent(name: "result-row-type-6", count: 4)])
        // $date? 8,27,14 and $time? 13,22, read as Paris time (CEST, UTC+2).
        XCTAssertEqual(outcome.clock.method, .deviceLocalTime)
        XCTAssertEqual(outcome.clock.deviceTime, utc("2014-08-27T11:22:00Z"))
        XCTAssertTrue(outcome.notes.contains("no host timestamps: the device's clock was read as local time in Europe/Paris"))

        let stored = try store.glucose()
        XCTAssertEqual(stored.count, 227)
        XCTAssertTrue(stored.allSatisfy { $0.kind == .fingerstick && $0.flag == nil })
        XCTAssertEqual(stored.reduce(0) { $0 + $1.mgdl }, 24_143)
        let byKey = Dictionary(uniqueKeysWithValues: stored.map { ($0.recordKey!, $0) })
        // Rows as the reader sent them: type, id, M, D, YY, h, m, …, value at field 13.
        for (key, mgdl, instant, day) in [
            ("result:20476", 68.0, "2014-08-27T10:47:00Z", "2014-08-27"),  // 0,20476,8,27,14,12,47,…,68,0,0
            ("result:20475", 93, "2014-08-27T07:39:00Z", "2014-08-27"),  // 0,20475,8,27,14,9,39,…,93,0,0
            ("result:20474", 105, "2014-08-26T17:40:00Z", "2014-08-26"),  // 0,20474,8,26,14,19,40,…,105,0,0
            ("result:20177", 145, "2014-07-22T09:07:00Z", "2014-07-22"),  // 0,20177,7,22,14,11,7,…,145,0,0
        ] {
            let reading = try XCTUnwrap(byKey[key], key)
            XCTAssertEqual(reading.mgdl, mgdl, key)
            XCTAssertEqual(reading.time, utc(instant), key)
            XCTAssertEqual(reading.day.description, day, key)
        }
        XCTAssertEqual(byKey["result:20477"] == nil && byKey["result:20470"] == nil, true, "type 4 rows are not glucose")
        XCTAssertEqual(stored.first?.time, utc("2014-07-22T09:07:00Z"))
        XCTAssertEqual(stored.last?.time, utc("2014-08-27T10:47:00Z"))

        let again = try importer.replayOne(captureAt: transcript)
        XCTAssertEqual(again.summary.added, 0)
        XCTAssertEqual(again.summary.alreadyStored, 227)
        XCTAssertEqual(try store.glucose().count, 227)
    }

    func testRegistryKnowsTheReaders() {
        XCTAssertTrue(DriverRegistry.usbDriver(named: "FreeStyle") == FreeStyleDriver.self)
        for product: UInt16 in [0x3650, 0x3670, 0x3850, 0x3460, 0x3450, 0x3950, 0x3960] {
            XCTAssertTrue(DriverRegistry.usbDriver(vendorID: 0x1A61, productID: product) == FreeStyleDriver.self, String(product, radix: 16))
        }
        XCTAssertNil(DriverRegistry.usbDriver(vendorID: 0x1A61, productID: 0x3410), "a serial-cable meter, not this protocol")
    }
}

/// Turns the shared vector's `H>D`/`D>H` message lines into a transcript of 64-byte reports
/// (the vector dropped each report's padding; it is zero here).
enum FreeStyleTranscripts {
    static func fromSessionMessages(_ text: String) -> String {
        var lines = ["# FreeStyle InsuLinx session rebuilt from session-messages.txt: one 64-byte report per line."]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count >= 3 else { continue }
            var report = hexBytes(String(parts[1] + parts[2] + (parts.count > 3 ? parts[3] : "")))
            report += [UInt8](repeating: 0, count: 64 - report.count)
            lines.append((parts[0] == "H>D" ? "out," : "in,") + Hex.encode(report))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
