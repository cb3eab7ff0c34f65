import Foundation
import GRDB
import ImportTestSupport
import TestSupport
import XCTest

@testable import Store

/// A store synced while a band's activity was under two sources (`ble-hrs`, `ble-hrs+huami`)
/// is migrated (store v13) and synced again: the server (central v6) then holds the band under
/// one `ble` source, with every minute as the store now has it and no row twice.
final class ActivitySourceSyncTests: XCTestCase {
    static let patient = "p-ble-source"

    func testTheServerFollowsTheStoresMergedActivitySource() async throws {
        let database = try await TestDatabase()
        let file = try StoreFile()
        let store = try file.open(zone: "UTC")
        // What a store of before v13 held, written into a new store and synced as it was.
        try sqlite3(file.path, OlderActivitySources.sql)
        _ = try await database.sync(store, patient: Self.patient)
        let before = try await database.rows(
            "SELECT family FROM source WHERE patient_id = '\(Self.patient)' ORDER BY family"
        ).map { $0[0] }
        XCTAssertEqual(before, ["ble-cgms", "ble-hrs", "ble-hrs+huami", "ble-rsc", "dexcom"])

        // The server as it was before central v6, and the store's migration v13 on its rows (as
        // GRDB's migrator runs it: in a transaction, foreign keys off, checked at the end).
        _ = try await database.rows("DELETE FROM sync_schema_version WHERE version = 6 RETURNING version::text")
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: file.path, configuration: configuration)
        try await queue.write { db in try Migrations.mergeBluetoothActivitySources(db) }
        try queue.close()
        XCTAssertEqual(try sqlite3(file.path, "PRAGMA foreign_key_check;"), "")

        let report = try await database.sync(store, patient: Self.patient)
        // The three minutes both sources held are sent again; the server changes the one merged
        // from both parts (06:01), and had kept the other two as the store did (more samples).
        XCTAssertEqual(report.written["activity_minute"], 1)

        let sources = try await database.rows(
            "SELECT family || ' ' || serial || ' ' || coalesce(model, '-') FROM source WHERE patient_id = '\(Self.patient)' ORDER BY 1"
        ).map { $0[0] }
        let band = OlderActivitySources.band
        XCTAssertEqual(
            sources.sorted(), ["ble POD-1 Pod", "ble \(band) Mi Band 5", "ble-cgms \(band) Mi Band glucose", "dexcom SM12345678 G4Receiver"].sorted())

        let serverMinutes = try await database.rows(
            """
            SELECT s.family || ' ' || s.serial || '|' || to_char(a.minute AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') || '|'
                   || a.sample_count || '|' || round(a.heart_rate_bpm::numeric, 6)
            FROM activity_minute a JOIN source s ON s.id = a.source_id
            WHERE a.patient_id = '\(Self.patient)' ORDER BY 1
            """
        ).map { $0[0] }.sorted()
        let localMinutes = try sqlite3(
            file.path,
            """
            SELECT s.family || ' ' || s.serial || '|' || substr(m.minute, 1, 16) || '|' || m.sample_count || '|'
                   || printf('%.6f', m.heart_rate_bpm)
            FROM activity_minute m JOIN source s ON s.id = m.source_id ORDER BY 1;
            """
        ).split(separator: "\n").map(String.init).sorted()
        XCTAssertEqual(serverMinutes, localMinutes)
        XCTAssertEqual(serverMinutes.count, 6)
        XCTAssertTrue(serverMinutes.contains("ble \(band)|2024-05-02 06:01|4|105.000000"), "\(serverMinutes)")

        let sessions = try await database.rows(
            """
            SELECT s.family || ' ' || s.serial || ' ' || a.device_record_key || ' ' || a.favourite::text
            FROM activity_session a JOIN source s ON s.id = a.source_id WHERE a.patient_id = '\(Self.patient)' ORDER BY 1
            """
        ).map { $0[0] }
        XCTAssertEqual(
            sessions.sorted(),
            [
                "ble POD-1 exercise:2024-05-02T07:20Z false", "ble \(band) exercise:2024-05-02T06:00Z true",
                "ble \(band) workout:2024-05-02T06:30Z false",
            ].sorted())
        let runs = try await database.rows(
            """
            SELECT r.local_id::text || ' ' || s.family || ' ' || s.serial FROM import_run r JOIN source s ON s.id = r.source_id
            WHERE r.patient_id = '\(Self.patient)' ORDER BY r.local_id
            """
        ).map { $0[0] }
        XCTAssertEqual(runs, ["1 ble \(band)", "2 ble \(band)", "3 ble POD-1", "4 dexcom SM12345678", "5 ble \(band)"])

        let again = try await database.sync(store, patient: Self.patient)
        XCTAssertEqual(again.written["activity_minute"] ?? 0, 0)
        await database.drop()
    }
}
