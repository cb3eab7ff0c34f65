import Foundation
import ImportTestSupport
import Importer
import Simulators
import Store
import Sync
import TestSupport
import XCTest

/// A minute split between two Bluetooth sessions reaches the central PostgreSQL server as its first
/// part, and is replaced there by the merged minute on the sync after the second session's import
/// (issue 36, item 2). The sessions are the simulated heart-rate band's seconds 1–90 and 91–150
/// from 05:55:00Z, recorded as two captures: they split minute 05:56.
final class SplitMinuteSyncTests: XCTestCase {
    /// The server's minutes of `patient`: minute, sample count, heart rate, energy and sensors.
    private func serverMinutes(_ database: TestDatabase, patient: String) async throws -> [String] {
        try await database.rows(
            """
            SELECT to_char(minute AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') || '|' || sample_count || '|'
                   || round(heart_rate_bpm::numeric, 6) || '|' || round(energy_kj::numeric, 3) || '|' || sensors::text
            FROM activity_minute WHERE patient_id = '\(patient)' ORDER BY minute
            """
        ).map { $0[0] }
    }

    /// The same of the local store.
    private func localMinutes(_ store: TestStore) throws -> [String] {
        try store.sqlite3(
            """
            SELECT substr(minute, 1, 16) || '|' || sample_count || '|' || printf('%.6f', heart_rate_bpm) || '|'
                   || printf('%.3f', energy_kj) || '|' || sensors
            FROM activity_minute ORDER BY minute;
            """
        ).split(separator: "\n").map(String.init)
    }

    func testTheMergedMinuteReplacesTheFirstPartOnTheServer() async throws {
        let database = try await TestDatabase()
        let folder = try Fixtures.temporaryDirectory()
        let partA = folder.appendingPathComponent("a.btsnoop")
        let partB = folder.appendingPathComponent("b.btsnoop")
        try HeartRateBandDemo.record(to: partA, notifying: 1...90)
        try HeartRateBandDemo.record(to: partB, notifying: 91...150)
        let local = try TestStore()
        let importer = Importer(store: local.store)

        _ = try importer.replayOneBLE(captureAt: partA)
        let first = try await database.sync(local.store, patient: "p-split")
        XCTAssertEqual(first.written["activity_minute"], 2)
        // Minute 05:56 as session A saw it: seconds 60–90, 4 kJ (the band's total from 4 to 8 kJ).
        let afterA = try await serverMinutes(database, patient: "p-split")
        XCTAssertEqual(afterA, try localMinutes(local))
        XCTAssertEqual(afterA.last, "2024-05-02 05:56|31|69.935484|4.000|[\"heart-rate-band\"]")

        _ = try importer.replayOneBLE(captureAt: partB)
        let second = try await database.sync(local.store, patient: "p-split")
        // 05:56 replaced by the merged minute (seconds 60–119, 4 to 10 kJ), 05:57 added.
        XCTAssertEqual(second.written["activity_minute"], 2)
        let afterB = try await serverMinutes(database, patient: "p-split")
        XCTAssertEqual(afterB, try localMinutes(local))
        XCTAssertEqual(afterB.count, 3)
        XCTAssertEqual(afterB.dropFirst().first, "2024-05-02 05:56|60|70.000000|6.000|[\"heart-rate-band\"]")

        let third = try await database.sync(local.store, patient: "p-split")
        XCTAssertEqual(third.written["activity_minute"] ?? 0, 0)
        await database.drop()
    }
}
