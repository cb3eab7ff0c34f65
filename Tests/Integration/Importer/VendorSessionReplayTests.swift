import Foundation
import ImportTestSupport
import Importer
import Model
import Store
import TestSupport
import XCTest

/// The whole Dexcom Studio ↔ G4 session of bewest/decoding-dexcom (no licence: read from
/// ../shared, never copied into the repository).
final class VendorSessionReplayTests: XCTestCase {
    func sessionURL() throws -> URL {
        guard let url = Fixtures.sharedVector("dexcom/bewest-decoding-dexcom/session-hex-lines.txt") else {
            throw XCTSkip("../shared is absent")
        }
        return url
    }

    func expectedRows(_ name: String) throws -> [(instant: Date, value: Double)] {
        let url = try XCTUnwrap(Fixtures.sharedVector("dexcom/bewest-decoding-dexcom/\(name)"))
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").dropFirst().map { line in
            let fields = line.split(separator: ",")
            return (utc(String(fields[1])), Double(fields[3])!)
        }
    }

    func testStudioSessionImportsEveryValidReadingOnce() throws {
        let (store, _) = try makeStore()
        let importer = Importer(store: store)
        let outcome = try importer.replayOne(captureAt: try sessionURL())

        // Studio reads four pages per request and pings first without an answer: passive replay.
        guard case .passive = outcome.replayMode else { return XCTFail("expected passive replay, got \(String(describing: outcome.replayMode))") }
        XCTAssertEqual(outcome.captureFormat, .transcript)
        XCTAssertEqual(outcome.source, DeviceSource(family: "dexcom", serial: "sm30140752", model: "G4Receiver"))
        XCTAssertEqual(outcome.summary.recordsRead, 331)
        XCTAssertEqual(outcome.summary.added, 283)
        XCTAssertEqual(outcome.summary.skipped, 48)
        XCTAssertEqual(outcome.events, [ImportEvent(name: "SENSOR_NOT_CALIBRATED", count: 39), ImportEvent(name: "display-only", count: 9)])
        XCTAssertEqual(outcome.clock.method, .deviceClockAsUTC)
        XCTAssertTrue(outcome.notes.contains("no host timestamps: the device's internal clock was taken as UTC"))
        XCTAssertTrue(outcome.notes.contains("no answer was recorded to Ping at capture packet 1"))

        let stored = try store.glucose()
        let sensor = stored.filter { $0.kind == .sensor }
        XCTAssertEqual(sensor.count, 251)
        XCTAssertEqual(stored.filter { $0.kind == .fingerstick }.count, 32)

        // Every one of the 228 exported readings, same instant and value.
        let byInstant = Dictionary(grouping: sensor, by: \.time)
        let expected = try expectedRows("expected-egv-from-studio-export.csv")
        XCTAssertEqual(expected.count, 228)
        for row in expected {
            XCTAssertEqual(byInstant[row.instant]?.map(\.mgdl), [row.value], "reading at \(row.instant)")
        }
        // The export was incremental: the capture holds 23 older readings.
        XCTAssertEqual(sensor.filter { $0.time < expected[0].instant }.count, 23)
        // Meter readings are stamped with the fingerstick time (meter time), as Studio exports them.
        let meters = Dictionary(grouping: stored.filter { $0.kind == .fingerstick }, by: \.time)
        for row in try expectedRows("expected-meter-from-studio-export.csv") {
            XCTAssertEqual(meters[row.instant]?.map(\.mgdl), [row.value], "meter reading at \(row.instant)")
        }
        // Days in America/Los_Angeles: the first export row, 04:27:34Z, is the evening of the 12th.
        XCTAssertEqual(byInstant[utc("2013-09-13 04:27:34")]?.first?.day.description, "2013-09-12")
        XCTAssertEqual(byInstant[utc("2013-09-13 04:27:34")]?.first?.displayTime, "2013-09-12T21:28:12")

        let again = try importer.replayOne(captureAt: try sessionURL())
        XCTAssertEqual(again.summary.added, 0)
        XCTAssertEqual(again.summary.alreadyStored, 283)
        XCTAssertEqual(try store.glucose().count, 283)
        XCTAssertEqual(try store.importRuns(limit: 10).count, 2)
    }

    /// Conversation replay finds the first answered Ping, the firmware header and the clock reads
    /// in the vendor's capture, then meets a request the vendor never made.
    func testConversationReplayStopsAtTheFirstRequestTheVendorNeverMade() throws {
        let (store, _) = try makeStore()
        let outcome = try Importer(store: store).replayOne(captureAt: try sessionURL(), driverName: "dexcom")
        guard case .passive(let reason) = outcome.replayMode else { return XCTFail() }
        // ReadDatabasePages(EGVData, page 1472, 1 page): Studio asked for four pages at a time.
        XCTAssertTrue(reason.contains("01 0C 00 11 04 C0 05 00 00 01"), reason)
    }
}
