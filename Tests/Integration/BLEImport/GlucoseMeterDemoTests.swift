import Foundation
import GRDB
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import XCTest

/// The demo Glucose-service meter (the lab's `ble meter` model) through the whole import: its
/// results on the consensus edges in both units, timed by its wall clock across the spring DST
/// change, and a link cut between a measurement and the context it announced.
final class GlucoseMeterDemoTests: XCTestCase {
    /// Read on 2024-04-02, after the meter's last result.
    static func meter(_ server: RACPServer = GlucoseMeterDemo.server()) -> SimulatedPeripheral {
        GlucoseMeterDemo.meter(server: server, clock: SimulatedClock(instant("2024-04-02T08:00:00Z")))
    }

    static func rows(_ store: SharedStore) throws -> [String] {
        try store.database.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT g.device_record_key || ' ' || g.mgdl || ' ' || g.unit || ' ' || g.tag || ' ' || coalesce(g.flag, '-') || ' '
                        || g.time || ' ' || d.date FROM glucose g JOIN day d ON d.id = g.day_id ORDER BY g.time
                    """)
        }
    }

    static func exercise(_ store: SharedStore) throws -> [String] {
        try store.database.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT e.device_record_key || ' ' || e.time || ' ' || e.duration_seconds || ' ' || e.intensity || ' ' || d.date
                    FROM exercise e JOIN day d ON d.id = e.day_id ORDER BY e.time
                    """)
        }
    }

    static let expectedRows = [
        "meter:1 53.0 mg/dL hypo-l2 - 2024-03-30 20:50:00.000 2024-03-30",
        "meter:2 54.0 mg/dL hypo-l1 - 2024-03-30 21:40:00.000 2024-03-30",
        "meter:3 69.9 mg/dL hypo-l1 - 2024-03-30 22:55:00.000 2024-03-30",
        // 00:30 CET on the 31st: the Day is the meter's, not UTC's.
        "meter:4 70.0 mg/dL in-range - 2024-03-30 23:30:00.000 2024-03-31",
        // 03:15 CEST, after the change.
        "meter:6 180.1 mg/dL hyper-l1 - 2024-03-31 01:15:00.000 2024-03-31",
        "meter:7 250.4224 mmol/L hyper-l1 - 2024-03-31 05:35:00.000 2024-03-31",
        "meter:8 250.0 mg/dL hyper-l1 - 2024-03-31 10:05:00.000 2024-03-31",
        "meter:9 251.0 mg/dL hyper-l2 - 2024-03-31 16:20:00.000 2024-03-31",
        "meter:10 600.0 mg/dL hyper-l2 HI 2024-03-31 20:07:00.000 2024-03-31",
        "meter:12 68.4608 mmol/L hypo-l1 - 2024-04-01 05:15:00.000 2024-04-01",
    ]

    func testDemoMeterResultsOnTheEdges() throws {
        let store = try freshStore(zone: "Europe/Berlin")
        let outcome = try Importer(store: store).importOneBLE(over: Self.meter(), origin: "simulated meter")
        XCTAssertEqual(outcome.problems, [])
        let glucose = try XCTUnwrap(outcome.glucose.first)
        XCTAssertEqual(glucose.source, DeviceSource(family: "ble-glucose", serial: "SIM-BGM-0001", model: "glucobridge simulator Glucose meter"))
        XCTAssertEqual(glucose.summary.recordsRead, 12)
        XCTAssertEqual(glucose.summary.added, 10)
        XCTAssertEqual(glucose.events, [ImportEvent(name: "control-solution", count: 1), ImportEvent(name: "special-value-nan", count: 1)])
        XCTAssertEqual(try Self.rows(store), Self.expectedRows)
        XCTAssertEqual(
            try Self.exercise(store),
            [
                "meter-exercise:4 2024-03-30 22:45:00.000 2700.0 vigorous 2024-03-30",
                "meter-exercise:10 2024-03-31 19:37:00.000 1800.0 light 2024-03-31",
            ])
        XCTAssertEqual(try store.cursor(source: glucose.source, stream: "meter"), 12)
    }

    /// The link ends after record 4's measurement, before the context it announced: records 1–3
    /// are kept whole, record 4 is left out and the position is not moved; the next session
    /// reads everything and adds only what is missing.
    func testLinkCutBetweenMeasurementAndItsContext() throws {
        let store = try freshStore(zone: "Europe/Berlin")
        let importer = Importer(store: store)
        let cut = GlucoseMeterDemo.server()
        cut.cutAfterValues = 4
        let first = try importer.importOneBLE(over: Self.meter(cut), origin: "simulated meter")
        XCTAssertEqual(
            first.problems,
            [
                .racpIncomplete(
                    service: .glucose, request: .reportStoredRecords(.all), reason: "the connection ended (the device ended the connection)")
            ])
        let glucose = try XCTUnwrap(first.glucose.first)
        XCTAssertEqual(glucose.events, [ImportEvent(name: "context-not-received", count: 1)])
        XCTAssertEqual(try Self.rows(store), Array(Self.expectedRows.prefix(3)))
        XCTAssertEqual(try Self.exercise(store), [])
        XCTAssertNil(try store.cursor(source: glucose.source, stream: "meter"))

        let whole = GlucoseMeterDemo.server()
        let next = try importer.importOneBLE(over: Self.meter(whole), origin: "simulated meter")
        XCTAssertEqual(whole.requests, [[0x04, 0x01], [0x01, 0x01]], "all records again: the position did not move")
        XCTAssertEqual(next.problems, [])
        XCTAssertEqual(next.glucose.first?.summary.added, 7)
        XCTAssertEqual(next.glucose.first?.summary.alreadyStored, 3)
        XCTAssertEqual(try Self.rows(store), Self.expectedRows)
        XCTAssertEqual(try Self.exercise(store).count, 2)
        XCTAssertEqual(try store.cursor(source: glucose.source, stream: "meter"), 12)
    }
}
