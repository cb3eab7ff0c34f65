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

/// Meters keep a wall clock a person sets. These replay captures recorded from the simulated
/// readers across the 2026 US change to daylight time (Sunday 2026-03-08, 02:00 EST → 03:00 EDT,
/// 07:00 UTC) and check every stored instant, Day and tag.
final class WallClockTimeTests: XCTestCase {
    /// Reader clocks are read at 2026-03-10 14:00:40 UTC (10:00:40 EDT): 40 s after the minute.
    static let host = utc("2026-03-10 14:00:40")

    static func clock(from start: Date) -> () -> Date {
        var tick = 0.0
        return {
            tick += 0.001
            return start.addingTimeInterval(tick)
        }
    }

    /// `id,12,M,D,YY,h,m,s,1,0,0,0,first,glucose,age,errors`.
    static func history(_ id: Int, _ date: String, _ time: String, _ mgdl: Int) -> String {
        "\(id),12,\(date),\(time),1,0,0,0,0,\(mgdl),\(id * 15),0"
    }

    /// A type 2 `$arresult?` row: `kind` 0 strip, 2 scan.
    static func result(_ id: Int, _ date: String, _ time: String, kind: Int, _ mgdl: Int) -> String {
        "\(id),2,\(date),\(time),1,\(kind),0,0,\(mgdl),1,3,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\"\",\"\",\"\",\"\",\"\",\"\""
    }

    /// A type 5 `$arresult?` row: the clock set from `old` to `new`.
    static func timeChange(_ id: Int, new: String, old: String) -> String {
        "\(id),5,\(new),1,\(old)"
    }

    struct Stored: Equatable, CustomStringConvertible {
        var time: String
        var day: String
        var mgdl: Double
        var tag: String
        var description: String { "\(time) \(day) \(mgdl) \(tag)" }
    }

    func replay(_ capture: URL, zone: String = "America/New_York") throws -> (GlucoseImport, [Stored], SharedStore) {
        let (store, _) = try makeStore(zone: zone)
        let outcome = try Importer(store: store).replayOne(captureAt: capture)
        let rows = try store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT g.time, d.date, g.mgdl, g.tag FROM glucose g JOIN day d ON d.id = g.day_id ORDER BY g.time")
        }
        return (outcome, rows.map { Stored(time: $0[0], day: $0[1], mgdl: $0[2], tag: $0[3]) }, store)
    }

    func libreCapture(date: String, time: String, history: [String], arresult: [String]) throws -> URL {
        let reader = FreeStyleReaderSimulator(
            productID: 0x3650, outEndpoint: false, serial: "JCMV000-DST01", softwareVersion: "2.3.2", date: date, time: time,
            records: ["$history?": history, "$arresult?": arresult], hostClock: Self.clock(from: Self.host))
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("libre.pcap")
        try FreeStyleDemo.record(reader, to: url)
        return url
    }

    /// The user moved the reader's clock forward an hour at 08:00 on the 8th; the reader logged it.
    func testLibreWithTheChangeRecordPlacesBothSidesOfTheChange() throws {
        let capture = try libreCapture(
            date: "3,10,26", time: "10,0",
            history: [
                Self.history(103, "3,9,26", "12,0,0", 181),
                Self.history(102, "3,8,26", "9,15,0", 180),  // after the change: EDT
                Self.history(101, "3,8,26", "7,45,0", 70),  // before it: EST
                Self.history(100, "3,7,26", "8,0,0", 69),
            ],
            arresult: [
                Self.result(202, "3,8,26", "10,0,0", kind: 2, 54),
                Self.timeChange(201, new: "3,8,26,9,0,0", old: "3,8,26,8,0,0"),
                Self.result(200, "3,7,26", "19,30,0", kind: 0, 53),
            ])
        let (outcome, stored, _) = try replay(capture)
        XCTAssertEqual(outcome.clock.wallClock, .changeLog)
        XCTAssertEqual(outcome.clock.offsetSeconds, 0, "40 s after the minute is no clock error")
        XCTAssertEqual(
            stored,
            [
                Stored(time: "2026-03-07 13:00:00.000", day: "2026-03-07", mgdl: 69, tag: "hypo-l1"),
                Stored(time: "2026-03-08 00:30:00.000", day: "2026-03-07", mgdl: 53, tag: "hypo-l2"),
                Stored(time: "2026-03-08 12:45:00.000", day: "2026-03-08", mgdl: 70, tag: "in-range"),
                Stored(time: "2026-03-08 13:15:00.000", day: "2026-03-08", mgdl: 180, tag: "in-range"),
                Stored(time: "2026-03-08 14:00:00.000", day: "2026-03-08", mgdl: 54, tag: "hypo-l1"),
                Stored(time: "2026-03-09 16:00:00.000", day: "2026-03-09", mgdl: 181, tag: "hyper-l1"),
            ])
        XCTAssertTrue(
            outcome.notes.contains {
                $0.hasPrefix("applied the logged clock change arresult:201 from 2026-03-08T08:00:00 to 2026-03-08T09:00:00 (+1 h 0 min)")
                    && $0.hasSuffix("read at UTC−05:00")
            }, "\(outcome.notes)")
    }

    /// The user never moved the clock: it still keeps standard time, an hour behind after the 8th.
    /// The reader's (empty) change log says its offset from UTC never changed.
    func testLibreNeverMovedKeepsOneOffsetThroughTheChange() throws {
        let capture = try libreCapture(
            date: "3,10,26", time: "9,0",
            history: [Self.history(11, "3,9,26", "11,0,0", 120), Self.history(10, "3,7,26", "8,0,0", 110)],
            arresult: [Self.result(20, "3,8,26", "6,30,0", kind: 2, 250)])
        let (outcome, stored, _) = try replay(capture)
        XCTAssertEqual(outcome.clock.wallClock, .changeLog)
        XCTAssertEqual(outcome.clock.offsetSeconds, 3600, "the reader is an hour behind")
        XCTAssertEqual(
            stored,
            [
                Stored(time: "2026-03-07 13:00:00.000", day: "2026-03-07", mgdl: 110, tag: "in-range"),
                Stored(time: "2026-03-08 11:30:00.000", day: "2026-03-08", mgdl: 250, tag: "hyper-l1"),
                Stored(time: "2026-03-09 16:00:00.000", day: "2026-03-09", mgdl: 120, tag: "in-range"),
            ])
        XCTAssertTrue(outcome.notes.contains { $0.contains("the device clock is −1 h 0 min off local time in America/New_York") }, "\(outcome.notes)")
    }

    /// A second import of the same reader reads only records after the stored cursors.
    func testLibreReimportAddsNothing() throws {
        let capture = try libreCapture(
            date: "3,10,26", time: "10,0", history: [Self.history(5, "3,9,26", "11,0,0", 120)],
            arresult: [Self.result(6, "3,9,26", "12,0,0", kind: 0, 100)])
        let (_, stored, store) = try replay(capture)
        XCTAssertEqual(stored.count, 2)
        let again = try Importer(store: store).replayOne(captureAt: capture)
        XCTAssertEqual(again.summary.added, 0)
    }

    func neoCapture(date: String, time: String, rows: [String]) throws -> URL {
        let reader = FreeStyleReaderSimulator(
            productID: 0x3850, outEndpoint: true, serial: "DCGT001-NEO", softwareVersion: "1.0", date: date, time: time,
            records: ["$result?": rows], hostClock: Self.clock(from: Self.host))
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("neo.pcap")
        try FreeStyleDemo.record(reader, to: url)
        return url
    }

    /// A Neo whose clock followed the change keeps no change log: its wall times are read in the
    /// store's zone on each side of the change; 02:30 on the 8th (skipped) is read in standard time.
    func testNeoAcrossTheChangeReadsLocalTimeOnEachSide() throws {
        let capture = try neoCapture(
            date: "3,10,26", time: "10,0",
            rows: [
                "7,4,3,9,26,8,0,1,104,0,0,0,0,0,0,0,0,0,0",
                "7,3,3,8,26,2,30,1,181,0,0,0,0,0,0,0,0,0,0",
                "7,2,3,8,26,1,59,1,251,0,0,0,0,0,0,0,0,0,0",
                "7,1,3,7,26,8,0,1,LO,0,0,0,0,0,0,0,0,0,0",
            ])
        let (outcome, stored, _) = try replay(capture)
        XCTAssertEqual(outcome.clock.wallClock, .correctedLocalTime)
        XCTAssertEqual(
            stored,
            [
                Stored(time: "2026-03-07 13:00:00.000", day: "2026-03-07", mgdl: 40, tag: "hypo-l2"),
                Stored(time: "2026-03-08 06:59:00.000", day: "2026-03-08", mgdl: 251, tag: "hyper-l2"),
                Stored(time: "2026-03-08 07:30:00.000", day: "2026-03-08", mgdl: 181, tag: "hyper-l1"),
                Stored(time: "2026-03-09 12:00:00.000", day: "2026-03-09", mgdl: 104, tag: "in-range"),
            ])
        XCTAssertTrue(
            outcome.notes.contains {
                $0.hasSuffix("they were read as local time on each side of the 2026-03-08 change")
            }, "\(outcome.notes)")
    }

    func contourCapture(unit: Int, clock: String, results: [String]) throws -> URL {
        let meter = ContourMeterSimulator(
            serial: "7390-0000001", unit: unit, clock: clock, results: results, hostClock: Self.clock(from: Self.host))
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("contour.pcap")
        try ContourMeterSimulator.record(meter, to: url)
        return url
    }

    /// A Contour 7 minutes fast: every wall time is read 7 minutes earlier, across the change.
    func testContourSevenMinutesFast() throws {
        let capture = try contourCapture(
            unit: 0, clock: "202603101007",
            results: [
                "R|1|^^^Glucose|70|mg/dL^P||B||202603070807",
                "R|2|^^^Glucose|181|mg/dL^P||A||202603091207",
            ])
        let (outcome, stored, _) = try replay(capture)
        XCTAssertEqual(outcome.clock.wallClock, .correctedLocalTime)
        XCTAssertEqual(outcome.clock.offsetSeconds, -420)
        XCTAssertEqual(
            stored,
            [
                Stored(time: "2026-03-07 13:00:00.000", day: "2026-03-07", mgdl: 70, tag: "in-range"),
                Stored(time: "2026-03-09 16:00:00.000", day: "2026-03-09", mgdl: 181, tag: "hyper-l1"),
            ])
    }

    /// A Contour 3 h 10 min slow, in mmol/L: tags follow the mmol/L edges (3.9 in range, 10.0 in
    /// range, 10.1 above, 3.8 below).
    func testContourThreeHoursTenMinutesSlowInMillimoles() throws {
        let capture = try contourCapture(
            unit: 1, clock: "202603100650",
            results: [
                "R|1|^^^Glucose|3.9|mmol/L^P||||202603070450",
                "R|2|^^^Glucose|10.0|mmol/L^P||||202603072350",  // 03:00 EDT on the 8th, just after the change
                "R|3|^^^Glucose|10.1|mmol/L^P||||202603080050",  // 04:00 EDT on the 8th
                "R|4|^^^Glucose|3.8|mmol/L^P||||202603090850",
            ])
        let (outcome, stored, _) = try replay(capture)
        XCTAssertEqual(outcome.clock.offsetSeconds, 11_400)
        XCTAssertEqual(
            stored.map(\.time),
            [
                "2026-03-07 13:00:00.000", "2026-03-08 07:00:00.000", "2026-03-08 08:00:00.000", "2026-03-09 16:00:00.000",
            ])
        XCTAssertEqual(stored.map(\.day), ["2026-03-07", "2026-03-08", "2026-03-08", "2026-03-09"])
        XCTAssertEqual(stored.map(\.tag), ["in-range", "in-range", "hyper-l1", "hypo-l1"])
        XCTAssertTrue(outcome.notes.contains { $0.contains("−3 h 10 min off local time") }, "\(outcome.notes)")
    }
}

/// The store's cursors for every stream a driver names are handed back to it.
final class FreeStyleCursorTests: XCTestCase {
    /// A second import of a Libre whose reader now holds two more history rows and one more scan
    /// reads only those three records.
    func testReimportReadsOnlyNewRecords() throws {
        let (store, _) = try makeStore(zone: "America/New_York")
        let importer = Importer(store: store)
        func reader(history: [String], arresult: [String]) -> FreeStyleReaderSimulator {
            FreeStyleReaderSimulator(
                productID: 0x3650, outEndpoint: false, serial: "JCMV000-CUR01", softwareVersion: "2.3.2", date: "3,10,26", time: "10,0",
                records: ["$history?": history, "$arresult?": arresult], hostClock: WallClockTimeTests.clock(from: WallClockTimeTests.host))
        }
        var history = [WallClockTimeTests.history(2, "3,10,26", "8,15,0", 120), WallClockTimeTests.history(1, "3,10,26", "8,0,0", 110)]
        var arresult = [
            "9,2,3,10,26,8,5,0,1,2,0,0,0,1,3,0,0,0,0,0,0,0,0,0,0,0,0,0,32768,\"\",\"\",\"\",\"\",\"\",\"\"",
            WallClockTimeTests.result(8, "3,10,26", "8,1,0", kind: 0, 100),
        ]
        let first = try importer.importOne(over: reader(history: history, arresult: arresult), driver: FreeStyleDriver.self, origin: "simulated")
        XCTAssertEqual(first.summary.recordsRead, 4)
        XCTAssertEqual(first.summary.added, 3)
        XCTAssertEqual(try store.cursors(source: first.source), ["history": 2, "arresult": 9])

        history.insert(
            contentsOf: [WallClockTimeTests.history(4, "3,10,26", "8,45,0", 140), WallClockTimeTests.history(3, "3,10,26", "8,30,0", 130)], at: 0)
        arresult.insert(WallClockTimeTests.result(10, "3,10,26", "8,50,0", kind: 2, 150), at: 0)
        let second = try importer.importOne(over: reader(history: history, arresult: arresult), driver: FreeStyleDriver.self, origin: "simulated")
        XCTAssertEqual(second.summary.recordsRead, 3, "only the records after the cursors")
        XCTAssertEqual(second.summary.added, 3)
        XCTAssertEqual(second.summary.alreadyStored, 0)
        XCTAssertEqual(second.events, [], "the flagged row of the first import is not counted again")
        XCTAssertEqual(try store.cursors(source: first.source), ["history": 4, "arresult": 10])
        XCTAssertEqual(try store.glucose().map(\.recordKey), ["history:1", "arresult:8", "history:2", "history:3", "history:4", "arresult:10"])
    }
}
