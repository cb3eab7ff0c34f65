import Foundation
import Ingest
import Model
import Pipeline
import XCTest

final class NormaliserTests: XCTestCase {
    let dexcomEpoch = Date(timeIntervalSince1970: 1_230_768_000)
    let pacific = TimeZone(identifier: "America/Los_Angeles")!
    let window = PlausibleWindow(captureTime: Date())

    func download(clock: DeviceClock, records: [DeviceGlucoseRecord]) -> GlucoseDownload {
        GlucoseDownload(
            source: DeviceSource(family: "dexcom", serial: "SM1"), clock: clock, glucose: records,
            recordsRead: records.count, cursors: ["egv": records.map(\.index).max() ?? 0])
    }

    func record(_ index: Int64, system: Int64, display: Int64? = nil, value: Double = 120) -> DeviceGlucoseRecord {
        DeviceGlucoseRecord(stream: "egv", index: index, deviceSeconds: system, displaySeconds: display, value: value, kind: .sensor)
    }

    /// UTC = host clock at download − (receiver now − record): a receiver clock seven months off
    /// (as in the ecc1 sample pages) does not move the readings.
    func testHostAnchoredTimeIgnoresAWrongDeviceClock() throws {
        let host = Date(timeIntervalSince1970: 1_700_000_000.4)
        let deviceNow: Int64 = 148_358_601
        let clock = DeviceClock(epoch: dexcomEpoch, basis: .universal, deviceNow: deviceNow, hostNow: host)
        let batch = try Normaliser.batch(
            from: download(clock: clock, records: [record(1, system: deviceNow - 300), record(2, system: deviceNow)]),
            mode: .live, origin: nil, startedAt: host, timeZone: pacific, window: window)
        XCTAssertEqual(batch.clock.method, .hostAnchored)
        XCTAssertEqual(batch.glucose.map(\.time), [Date(timeIntervalSince1970: 1_700_000_000 - 300), Date(timeIntervalSince1970: 1_700_000_000)])
        XCTAssertEqual(batch.glucose.map(\.recordKey), ["egv:1", "egv:2"])
        XCTAssertEqual(batch.glucose.map(\.deviceTime), [deviceNow - 300, deviceNow])
        // The receiver clock reads 2013-09-14; the host 2023-11-14: about ten years apart.
        let offset = try! XCTUnwrap(batch.clock.offsetSeconds)
        XCTAssertEqual(offset, 1_700_000_000.4 - (1_230_768_000 + 148_358_601), accuracy: 0.001)
        XCTAssertTrue(batch.notes.contains { $0.hasPrefix("the device clock is") && $0.contains("behind the host clock") }, "\(batch.notes)")
    }

    /// A clock within 15 minutes of the host's is not remarked on.
    func testSmallClockOffsetIsNotReported() throws {
        let host = Date(timeIntervalSince1970: 1_230_768_000 + 1000 + 42)
        let clock = DeviceClock(epoch: dexcomEpoch, basis: .universal, deviceNow: 1000, hostNow: host)
        let batch = try Normaliser.batch(
            from: download(clock: clock, records: [record(1, system: 900)]), mode: .live, origin: nil, startedAt: host, timeZone: pacific,
            window: window)
        XCTAssertEqual(batch.clock.offsetSeconds, 42)
        XCTAssertEqual(batch.glucose[0].time, Date(timeIntervalSince1970: 1_230_768_000 + 900 + 42))
        XCTAssertTrue(batch.notes.isEmpty, "\(batch.notes)")
    }

    /// A transcript has no host timestamps: the receiver's system clock is taken as UTC, said in a note.
    func testWithoutHostTimeTheUniversalDeviceClockIsUsed() throws {
        let clock = DeviceClock(epoch: dexcomEpoch, basis: .universal, deviceNow: 148_358_601, hostNow: nil)
        let batch = try Normaliser.batch(
            from: download(clock: clock, records: [record(7, system: 148_278_454, display: 148_278_454 - 25161)]),
            mode: .replayPassive, origin: "x", startedAt: Date(), timeZone: pacific, window: window)
        XCTAssertEqual(batch.clock.method, .deviceClockAsUTC)
        // expected-egv-from-studio-export.csv, first row: 2013-09-13 04:27:34 UTC, display 2013-09-12 21:28:13.
        XCTAssertEqual(batch.glucose[0].time, ISO8601DateFormatter().date(from: "2013-09-13T04:27:34Z"))
        XCTAssertEqual(batch.glucose[0].displayTime, "2013-09-12T21:28:13")
        XCTAssertEqual(batch.notes, ["no host timestamps: the device's internal clock was taken as UTC"])
    }

    /// A wall-clock device without host time is read in the store's zone, across a DST change.
    func testLocalWallClockFallbackUsesTheZone() throws {
        let epoch = Date(timeIntervalSince1970: 0)
        // 2024-03-10 01:30 and 03:30 local (before/after the spring-forward gap) in Los Angeles.
        let before: Int64 = 1_710_034_200
        let after: Int64 = 1_710_041_400
        let clock = DeviceClock(epoch: epoch, basis: .localWallClock)
        let batch = try Normaliser.batch(
            from: download(clock: clock, records: [record(1, system: before), record(2, system: after)]),
            mode: .replayPassive, origin: nil, startedAt: Date(), timeZone: pacific, window: window)
        XCTAssertEqual(batch.clock.method, .deviceLocalTime)
        XCTAssertEqual(batch.glucose[0].time, ISO8601DateFormatter().date(from: "2024-03-10T09:30:00Z"))
        XCTAssertEqual(batch.glucose[1].time, ISO8601DateFormatter().date(from: "2024-03-10T10:30:00Z"))
    }

    func testValuesInMmolAreConvertedWithTheOneFactor() throws {
        var reading = record(1, system: 0, value: 10.0)
        reading.unit = .millimolesPerLiter
        let batch = try Normaliser.batch(
            from: download(clock: DeviceClock(epoch: dexcomEpoch, basis: .universal), records: [reading]),
            mode: .live, origin: nil, startedAt: Date(), timeZone: pacific, window: window)
        XCTAssertEqual(batch.glucose[0].mgdl, 180.16, accuracy: 1e-9)
        XCTAssertEqual(batch.glucose[0].unit, .millimolesPerLiter)
    }

    func testCivilTimeMatchesFoundation() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        var generator = SystemRandomNumberGenerator()
        let samples: [Int64] =
            [0, -1, 86_399, 86_400, 951_782_400, 4_107_542_399, -2_208_988_800]
            + (0..<500).map { _ in Int64.random(in: -5_000_000_000...5_000_000_000, using: &generator) }
        for seconds in samples {
            XCTAssertEqual(CivilDate.wallClock(seconds), formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))), "\(seconds)")
        }
    }

    /// A CGM whose Session Start Time reads 2106 would put every reading after the capture: the
    /// batch is refused, quoting it.
    func testImplausibleSessionStartTimeIsRefused() {
        let start = Date(timeIntervalSince1970: 4_294_967_296)
        let clock = DeviceClock(epoch: start, basis: .universal, epochName: "Session Start Time")
        let records = [record(1, system: 600), record(2, system: 900)]
        let window = PlausibleWindow(captureTime: Date(timeIntervalSince1970: 1_705_305_600))
        XCTAssertThrowsError(
            try Normaliser.batch(
                timedByDevice: download(clock: clock, records: records), mode: .replayPassive, origin: nil, startedAt: Date(),
                timeZone: pacific, window: window)
        ) { error in
            XCTAssertEqual(
                "\(error)",
                "the device's Session Start Time is 2106-02-07T06:28:16Z: placing the records by it would put all 2 of them between 2106-02-07T06:38:16Z and 2106-02-07T06:43:16Z, outside the plausible window 2000-01-01 to 2024-01-15T08:05:00Z; the clock reply looks damaged, so nothing was stored"
            )
        }
    }
}
