import Foundation
import ImportTestSupport
import Model
import TestSupport
import XCTest

@testable import Store

/// Migration v13: a Bluetooth device's activity, stored before under a family joining its
/// services (`ble-hrs+huami`), is stored under the bus's family `ble` with its services listed;
/// two sources of one device (one stored before a service appeared) become one, and nothing
/// either held is lost or doubled.
final class ActivitySourceMigrationTests: XCTestCase {
    static let band = OlderActivitySources.band

    /// A v12 store holding ``OlderActivitySources``.
    func v12Store() throws -> ImportTestSupport.StoreFile {
        try olderStore(migratedUpTo: "v12-exercise-distance-energy", holding: OlderActivitySources.sql)
    }

    func testJoinedAndSingleActivityFamiliesBecomeTheBusWithTheirServicesListed() throws {
        let file = try v12Store()
        _ = try file.open(zone: "UTC")
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT id || ' ' || family || ' ' || serial || ' ' || ifnull(model, '-') FROM source ORDER BY id;"),
            """
            1 ble \(Self.band) Mi Band 5
            3 ble-cgms \(Self.band) Mi Band glucose
            4 ble POD-1 Pod
            5 dexcom SM12345678 G4Receiver
            """)
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT source_id || ' ' || service FROM source_service ORDER BY source_id, service;"),
            "1 ble-hrs\n1 huami\n4 ble-rsc")
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT source_id || ' ' || stream || ' ' || last_record_index FROM source_cursor ORDER BY source_id, stream;"),
            "1 activity 250\n1 workout 7\n5 EGVData 41")
        XCTAssertEqual(try sqlite3(file.path, "PRAGMA foreign_key_check;"), "")
        XCTAssertEqual(try sqlite3(file.path, "SELECT changed FROM migration_note WHERE identifier = 'v13-ble-activity-source';"), "2")
    }

    func testTwoSourcesOfOneBandAreMergedWithoutLossOrDuplicates() throws {
        let file = try v12Store()
        let store = try file.open(zone: "UTC")
        // Every import run kept, moved to the band's one source, and one more that wrote the
        // minutes both sources held (so that a sync sends them again), the latest run's mode kept.
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT id || ' ' || source_id || ' ' || mode || ' ' || records_read FROM import_run ORDER BY id;"),
            "1 1 live 9\n2 1 replay-conversation 9\n3 4 live 1\n4 5 live 0\n5 1 replay-conversation 0")
        let runs = try store.importRuns(limit: 10)
        XCTAssertEqual(runs.first?.id, 5)
        XCTAssertEqual(runs.first?.source, DeviceSource(family: "ble", serial: Self.band, model: "Mi Band 5"))
        XCTAssertEqual(
            runs.first?.notes,
            ["store migration v13-ble-activity-source: 3 activity minutes of this device stored under two of its sources merged into one"])
        // The exercise both held is kept once, with the favourite mark the dropped copy had.
        XCTAssertEqual(
            try sqlite3(
                file.path,
                "SELECT source_id || ' ' || device_record_key || ' ' || ifnull(favourite_id, '-') FROM exercise ORDER BY source_id, device_record_key;"
            ),
            """
            1 exercise:2024-05-02T06:00Z 1
            1 workout:2024-05-02T06:30Z -
            4 exercise:2024-05-02T07:20Z -
            """)
        // 06:01: both held a part: merged from both (200 + 220 over 4 beats). 06:02: the parts
        // kept (3 samples) beat a minute stored without (1). 06:03: the other way round. Minutes
        // only one source held keep their import run; the three decided are run 5's.
        XCTAssertEqual(
            try sqlite3(
                file.path,
                "SELECT minute || ' ' || heart_rate_bpm || ' ' || sample_count || ' ' || import_run_id FROM activity_minute "
                    + "WHERE source_id = 1 ORDER BY minute;"),
            """
            2024-05-02 06:00:00.000 90.0 2 1
            2024-05-02 06:01:00.000 105.0 4 5
            2024-05-02 06:02:00.000 120.0 3 5
            2024-05-02 06:03:00.000 134.0 5 5
            2024-05-02 06:04:00.000 140.0 2 2
            """)
        XCTAssertEqual(
            try sqlite3(
                file.path,
                "SELECT minute || ' ' || first_sample || ' ' || import_run_id FROM activity_minute_part WHERE source_id = 1 ORDER BY minute, first_sample;"
            ),
            """
            2024-05-02 06:00:00.000 2024-05-02 06:00:10.000 1
            2024-05-02 06:01:00.000 2024-05-02 06:01:00.000 1
            2024-05-02 06:01:00.000 2024-05-02 06:01:30.000 5
            2024-05-02 06:02:00.000 2024-05-02 06:02:00.000 1
            2024-05-02 06:03:00.000 2024-05-02 06:03:00.000 2
            2024-05-02 06:04:00.000 2024-05-02 06:04:00.000 2
            """)
        XCTAssertEqual(try sqlite3(file.path, "SELECT count(*) FROM activity_minute WHERE source_id = 2;"), "0")
        XCTAssertEqual(try store.activityMinutes(source: DeviceSource(family: "ble", serial: Self.band)).count, 5)
        // What a sync sends again: the three decided minutes, under the band's one source.
        let resent = try store.syncActivityMinutes(importRuns: 5...5)
        XCTAssertEqual(resent.rows.count, 3)
        XCTAssertEqual(Set(resent.values(of: "family")), [SyncValue.text("ble")])
        XCTAssertEqual(Set(resent.values(of: "serial")), [SyncValue.text(Self.band)])
    }

    /// A store with nothing to rename gets the table and no note; opening it again changes nothing.
    func testAStoreWithoutBluetoothActivityIsLeftAsItWas() throws {
        let file = try olderStore(
            migratedUpTo: "v12-exercise-distance-energy",
            holding: "INSERT INTO source (family, serial, model) VALUES ('dexcom', 'SM12345678', 'G4Receiver');")
        _ = try file.open(zone: "UTC")
        XCTAssertEqual(try sqlite3(file.path, "SELECT family FROM source;"), "dexcom")
        XCTAssertEqual(try sqlite3(file.path, "SELECT count(*) FROM source_service;"), "0")
        XCTAssertEqual(try sqlite3(file.path, "SELECT count(*) FROM migration_note WHERE identifier = 'v13-ble-activity-source';"), "0")
    }
}
