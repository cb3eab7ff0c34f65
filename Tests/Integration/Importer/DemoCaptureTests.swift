import AppTestSupport
import CaptureUSB
import Drivers
import Foundation
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import XCTest

/// The capture README's first command replays: real ecc1 pages, recorded through the recorder.
final class DemoCaptureTests: XCTestCase {
    let demo = Fixtures.url("dexcom/ecc1-g4-receiver.pcap")

    /// The committed capture is exactly what the generator records (set GLUCOBRIDGE_WRITE_FIXTURES=1
    /// to write it anew).
    func testDemoCaptureIsReproducible() throws {
        let folder = try Fixtures.temporaryDirectory()
        let fresh = folder.appendingPathComponent("demo.pcap")
        try DemoCapture.record(pagesFolder: Fixtures.url("dexcom/ecc1"), to: fresh)
        if ProcessInfo.processInfo.environment["GLUCOBRIDGE_WRITE_FIXTURES"] == "1" {
            try? FileManager.default.removeItem(at: demo)
            try FileManager.default.copyItem(at: fresh, to: demo)
        }
        XCTAssertEqual(try Data(contentsOf: fresh), try Data(contentsOf: demo))
    }

    func testDemoCaptureReplaysByConversation() throws {
        let (store, _) = try makeStore(zone: "America/New_York")
        let importer = Importer(store: store)
        let outcome = try importer.replayOne(captureAt: demo)
        XCTAssertEqual(outcome.replayMode, .conversation)
        XCTAssertEqual(outcome.captureFormat, .pcap(linkType: 220))
        XCTAssertEqual(outcome.source, DeviceSource(family: "dexcom", serial: "SM44792675", model: "G4Receiver"))
        XCTAssertEqual(outcome.summary.added, 23)
        XCTAssertEqual(outcome.clock.method, .hostAnchored)
        // The simulated host clock ran 4 h ahead of the receiver's system clock.
        XCTAssertEqual(try XCTUnwrap(outcome.clock.offsetSeconds), DemoCapture.hostOffset, accuracy: 0.1)

        // Values against ecc1's expectations; instants are the system times plus the 4 h offset.
        let rows = try JSONSerialization.jsonObject(with: Data(contentsOf: Fixtures.url("dexcom/ecc1/4.312.json"))) as! [[String: Any]]
        let stored = try store.glucose()
        XCTAssertEqual(stored.count, 23)
        for (reading, row) in zip(stored, rows.reversed()) {
            let egv = row["EGV"] as! [String: Any]
            let stamps = row["Timestamp"] as! [String: String]
            XCTAssertEqual(reading.mgdl, Double(egv["Glucose"] as! Int))
            let system = utc(String(stamps["SystemTime"]!.prefix(19)).replacingOccurrences(of: "T", with: " "))
            XCTAssertEqual(reading.time, system.addingTimeInterval(DemoCapture.hostOffset))
            XCTAssertEqual(reading.displayTime, String(stamps["DisplayTime"]!.prefix(19)))
            XCTAssertEqual(reading.trend, [2: Trend.singleUp, 3: .fortyFiveUp, 4: .flat][egv["Trend"] as! Int])
        }
        XCTAssertEqual(stored.last?.mgdl, 224)
        XCTAssertEqual(stored.last?.tag, .hyperLevel1)
        XCTAssertEqual(stored.last?.recordKey, "egv:11878")

        let again = try importer.replayOne(captureAt: demo)
        XCTAssertEqual(again.replayMode, .conversation)
        XCTAssertEqual(again.summary.added, 0)
        XCTAssertEqual(again.summary.alreadyStored, 23)
    }

    /// Only read commands cross the wire: every OUT transfer of the recorded session decodes to a
    /// `DexcomCommand`.
    func testRecordedSessionHoldsOnlyReadCommands() throws {
        let capture = try USBCaptureReader.read(contentsOf: demo)
        let requests = capture.transfers.filter { $0.type == .bulk && $0.direction == .out }
        XCTAssertEqual(requests.count, 10)
        for request in requests {
            let packet = try DexcomPacket.decode(request.data, location: "request")
            XCTAssertNotNil(DexcomCommand(rawValue: packet.code), "packet \(request.packetNumber)")
        }
    }
}
