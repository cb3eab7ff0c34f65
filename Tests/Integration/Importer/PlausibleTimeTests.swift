import Drivers
import Foundation
import GRDB
import ImportTestSupport
import Importer
import Ingest
import Model
import Simulators
import Store
import TestSupport
import XCTest

/// Nothing lands before 2000 or after the capture's own time: such records are counted and named,
/// and a device clock that would put everything there refuses the import.
final class PlausibleTimeTests: XCTestCase {
    /// A receiver whose clock reply was damaged (28 years ahead) would move every reading before
    /// 2000: the import fails, quoting the clock, and nothing is stored.
    func testDamagedReceiverClockFailsTheImport() throws {
        let (store, _) = try makeStore()
        let last: UInt32 = 560_000_000
        let pages = DexcomPageBuilder.generatedEGVPages(count: 38, lastSystemSeconds: last, displayOffset: -25_200)
        let host = Date(timeIntervalSince1970: TimeInterval(dexcomEpochOffsetFrom1970) + TimeInterval(last + 60))
        let damaged = last + 60 + 883_612_800
        let receiver = DexcomReceiverSimulator(
            pages: [
                DexcomPartition.manufacturingData.rawValue: [0: DexcomPageBuilder.manufacturingPage(serial: "SM00000042", systemSeconds: 1)],
                DexcomPartition.egvData.rawValue: pages,
            ],
            systemTime: damaged, displayTimeOffset: -25_200, hostClock: { host })
        let before = try tableCounts(store)
        XCTAssertThrowsError(try Importer(store: store).importOne(over: receiver, driver: DexcomDriver.self, origin: "simulated")) { error in
            guard case .implausibleClock(let clock) = error as? ImportError else { return XCTFail("\(error)") }
            XCTAssertEqual(clock.records, 38)
            XCTAssertTrue(clock.first < PlausibleWindow.earliest)
            let message = "\(error)"
            XCTAssertTrue(message.hasPrefix("the device's clock read 2054-09-30T11:34:20Z ("), message)
            XCTAssertTrue(message.contains("(\(damaged) s on its own count)"), message)
            XCTAssertTrue(message.contains("would put all 38 of them between 1998-"), message)
            XCTAssertTrue(message.hasSuffix("nothing was stored"), message)
        }
        XCTAssertEqual(try tableCounts(store), before)
    }

    /// Rows dated 2049 (a Libre's two-digit year) and 1951 are counted as `implausible-time` and
    /// named; the others are stored.
    func testImpossibleRecordTimesAreCountedAndNamed() throws {
        let host = utc("2026-03-10 14:00:40")
        let reader = FreeStyleReaderSimulator(
            productID: 0x3650, outEndpoint: false, serial: "JCMV000-BAD01", softwareVersion: "2.3.2", date: "3,10,26", time: "10,0",
            records: [
                "$history?": ["3,12,3,9,49,12,0,0,1,0,0,0,0,150,45,0", "2,12,3,9,26,12,0,0,1,0,0,0,0,140,30,0"],
                "$arresult?": [],
            ],
            hostClock: WallClockTimeTests.clock(from: host))
        let capture = try Fixtures.temporaryDirectory().appendingPathComponent("libre.pcap")
        try FreeStyleDemo.record(reader, to: capture)
        let (store, _) = try makeStore(zone: "America/New_York")
        let outcome = try Importer(store: store).replayOne(captureAt: capture)
        XCTAssertEqual(outcome.summary.added, 1)
        XCTAssertEqual(outcome.summary.skipped, 1)
        XCTAssertEqual(outcome.events, [ImportEvent(name: "implausible-time", count: 1)])
        XCTAssertTrue(
            outcome.notes.contains(
                "1 readings outside the plausible time window 2000-01-01 to 2026-03-10T14:05:40Z not stored: history:3 at 2049-03-09T16:00:00Z"
            ), "\(outcome.notes)")
        XCTAssertEqual(try store.glucose().map(\.recordKey), ["history:2"])

        let meter = ContourMeterSimulator(
            serial: "7390-0000002", unit: 0, clock: "202603101000",
            results: ["R|1|^^^Glucose|99|mg/dL^P||||195103101000", "R|2|^^^Glucose|101|mg/dL^P||||202603091000"],
            hostClock: { host })
        let contour = try Fixtures.temporaryDirectory().appendingPathComponent("contour.pcap")
        try ContourMeterSimulator.record(meter, to: contour)
        let second = try Importer(store: store).replayOne(captureAt: contour)
        XCTAssertEqual(second.summary.added, 1)
        XCTAssertEqual(second.events, [ImportEvent(name: "implausible-time", count: 1)])
        XCTAssertTrue(second.notes.contains { $0.hasSuffix("not stored: result:1@195103101000 at 1951-03-10T15:00:00Z") }, "\(second.notes)")
        XCTAssertEqual(try store.glucose().count, 2)
        XCTAssertFalse(
            try store.database.read { db in
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM day WHERE date < '2000-01-01' OR date > '2026-03-11')")!
            })
    }

    /// The window's end is the capture's last plausible packet time: a damaged last timestamp
    /// (year 6591) is not taken for it.
    func testCaptureTimeIgnoresImplausibleTimestamps() {
        let now = utc("2026-11-01 00:00:00")
        let times = [utc("2015-07-18 02:00:00"), utc("2015-07-18 02:08:00"), Date(timeIntervalSince1970: 145_800_000_000)]
        XCTAssertEqual(PlausibleWindow.forCapture(timestamps: times, now: now).captureTime, utc("2015-07-18 02:08:00"))
        XCTAssertEqual(PlausibleWindow.forCapture(timestamps: [Date](), now: now).captureTime, now)
        let window = PlausibleWindow(captureTime: utc("2015-07-18 02:08:00"))
        XCTAssertTrue(window.contains(utc("2015-07-18 02:13:00")))
        XCTAssertFalse(window.contains(utc("2015-07-18 02:13:01")))
        XCTAssertFalse(window.contains(utc("1999-12-31 23:59:59")))
        XCTAssertTrue(window.contains(utc("2000-01-01 00:00:00")))
    }
}
