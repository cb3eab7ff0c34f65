import Foundation
import GRDB
import ImportTestSupport
import Ingest
import Model
import TestSupport
import XCTest

@testable import Store

/// Activity minutes split between two imports are merged into what one import of every sample
/// stores (issue 36, item 2): a heart-rate band and a running pod on one device, their samples
/// cut at 06:01:31, inside minute 06:01.
final class MinuteMergeTests: XCTestCase {
    let device = DeviceSource(family: "ble", serial: "POD-1", model: "Pod")
    let start = utc("2024-05-02T06:00:00Z")
    var cut: Date { start.addingTimeInterval(91) }

    /// Three minutes: a band at 100 then 130 bpm and a pod walking 1.5 m/s, its distance total from 1000 m.
    var samples: [ActivitySample] {
        ActivityStreams.band(from: start, minutes: [0, 1], bpm: 100) + ActivityStreams.band(from: start, minutes: [2], bpm: 130)
            + ActivityStreams.pod(from: start, minutes: [0, 1, 2], cadence: 110, speed: 1.5, gait: .walking, startDistance: 1000)
    }

    func batch(_ samples: [ActivitySample], importedAt offset: Double) -> ActivityBatch {
        let imported = start.addingTimeInterval(offset)
        return ExerciseDetector(profile: UserProfile()).batch(
            from: samples, source: device, startedAt: imported, mode: .live, origin: "minute merge tests",
            clock: ClockReport(hostTime: imported, deviceTime: nil, method: .hostAnchored))
    }

    var partA: ActivityBatch { batch(samples.filter { $0.time < cut }, importedAt: 92) }
    var partB: ActivityBatch { batch(samples.filter { $0.time >= cut }, importedAt: 181) }

    func minutes(_ imports: [[ActivityBatch]]) throws -> [String] {
        try storeContent(stored(imports), [.activityMinutes])
    }

    func stored(_ imports: [[ActivityBatch]]) throws -> SharedStore {
        let store = try freshStore(zone: "UTC")
        for batches in imports { _ = try store.save(glucose: [], activity: batches) }
        return store
    }

    /// Minute 06:01 of the store after `imports`.
    func splitMinute(_ imports: [[ActivityBatch]]) throws -> ActivityMinute? {
        let minute = start.addingTimeInterval(60)
        return try stored(imports).activityMinutes(from: minute, to: minute.addingTimeInterval(60)).first?.minute
    }

    func testPartsInAnyOrderOrOneImportGiveTheWholeMinute() throws {
        let whole = try minutes([[batch(samples, importedAt: 181)]])
        XCTAssertEqual(whole.count, 3)
        // 06:01: 60 band samples at 100 bpm and 30 pod samples; the pod's total grew 3 m a sample,
        // the step into the minute included: 90 m.
        XCTAssertEqual(
            try splitMinute([[batch(samples, importedAt: 181)]]),
            ActivityMinute(
                start: start.addingTimeInterval(60), heartRate: 100, stepCadence: 110, speed: 1.5, distance: 90, gait: .walking,
                sensors: [.heartRateBand, .runningPod], sampleCount: 90))
        XCTAssertEqual(try minutes([[partA], [partB]]), whole)
        XCTAssertEqual(try minutes([[partB], [partA]]), whole)
        XCTAssertEqual(try minutes([[partA], [partA], [partB], [partA]]), whole)
        XCTAssertEqual(try minutes([[partA, partB]]), whole)
        XCTAssertEqual(try minutes([[partB, partA]]), whole)
        // Without the merge the first part would stand: A alone holds 47 samples and 48 m (B's
        // 29 band and 14 pod samples, 39 m, and the 3 m from A's last total to B's first, are missing).
        XCTAssertEqual(
            try splitMinute([[partA]]),
            ActivityMinute(
                start: start.addingTimeInterval(60), heartRate: 100, stepCadence: 110, speed: 1.5, distance: 48, gait: .walking,
                sensors: [.heartRateBand, .runningPod], sampleCount: 47))
        XCTAssertEqual(try splitMinute([[partB]])?.distance, 39)
        XCTAssertEqual(try splitMinute([[partB]])?.sampleCount, 43)
    }

    /// The merge keeps the parts apart: three sessions of one minute, any order; and a part that
    /// overlaps a stored one in time (the same samples seen by another receiver) is not added.
    func testThreePartsAndAnOverlappingPart() throws {
        let whole = try minutes([[batch(samples, importedAt: 181)]])
        let cuts = [start.addingTimeInterval(75), start.addingTimeInterval(101)]
        let first = batch(samples.filter { $0.time < cuts[0] }, importedAt: 80)
        let middle = batch(samples.filter { $0.time >= cuts[0] && $0.time < cuts[1] }, importedAt: 102)
        let last = batch(samples.filter { $0.time >= cuts[1] }, importedAt: 181)
        XCTAssertEqual(try minutes([[middle], [last], [first]]), whole)
        XCTAssertEqual(try minutes([[last], [first], [middle]]), whole)

        let store = try freshStore(zone: "UTC")
        _ = try store.save(partA)
        let overlapping = batch(samples.filter { $0.time >= start.addingTimeInterval(85) }, importedAt: 181)
        let summary = try store.save(overlapping)
        XCTAssertEqual(summary.minutesAdded, 1)
        XCTAssertEqual(summary.minutesMerged, 0)
        XCTAssertEqual(summary.minutesAlreadyStored, 1)
        let parts = try sqlite3(store.path, "SELECT count(*) FROM activity_minute_part WHERE minute = '2024-05-02 06:01:00.000';")
        XCTAssertEqual(parts, "1")
    }

    /// A store made before v10 keeps its minutes as they were: a part of such a minute is not
    /// merged into it (the store has not its sums), and counts as already stored.
    func testV10LeavesMinutesStoredBeforeAsTheyAre() throws {
        let file = try olderStore(
            migratedUpTo: "v9-tags-from-exact-values",
            holding: """
                INSERT INTO source (family, serial, model) VALUES ('ble-rsc', 'POD-1', 'Pod');
                INSERT INTO import_run (source_id, started_at, finished_at, mode, records_read, records_added,
                                        records_already_stored, records_skipped, time_method)
                VALUES (1, '2024-05-02 06:01:32.000', '2024-05-02 06:01:32.000', 'live', 46, 2, 0, 0, 'host-anchored');
                INSERT INTO activity_minute (source_id, minute, heart_rate_bpm, sensors, sample_count, import_run_id)
                VALUES (1, '2024-05-02 06:01:00.000', 100, '["heart-rate-band"]', 31, 1);
                """)
        let store = try file.open(zone: "UTC")
        let summary = try store.save(partB)
        XCTAssertEqual(summary.minutesAdded, 1)
        XCTAssertEqual(summary.minutesMerged, 0)
        XCTAssertEqual(summary.minutesAlreadyStored, 1)
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT sample_count || ' ' || import_run_id FROM activity_minute WHERE minute = '2024-05-02 06:01:00.000';"),
            "31 1")
        XCTAssertEqual(try sqlite3(file.path, "SELECT count(*) FROM activity_minute_part;"), "1")
    }

    /// A part whose key or sums break the table's rules is refused by any writer.
    func testThePartTableRefusesAPartOutsideItsMinute() throws {
        let store = try freshStore(zone: "UTC")
        _ = try store.save(partA)
        XCTAssertThrowsError(
            try sqlite3(
                store.path,
                """
                PRAGMA foreign_keys = ON;
                INSERT INTO activity_minute_part SELECT source_id, minute, '2024-05-02 06:02:00.000', '2024-05-02 06:02:01.000',
                    heart_rate_sum, heart_rate_count, step_cadence_sum, step_cadence_count, crank_cadence_sum, crank_cadence_count,
                    speed_sum, speed_count, distance_m, energy_kj, walking_count, running_count, sensors, running_totals,
                    sample_count, import_run_id, device_activity_kind, device_intensity FROM activity_minute_part LIMIT 1;
                """)
        ) { error in XCTAssertTrue("\(error)".contains("CHECK constraint failed"), "\(error)") }
    }

    /// A band's own kind and intensity bytes (one sample a minute) through a minute split between
    /// two imports: of two samples in a minute, the later one's values are stored, whichever
    /// import came first; a part without them keeps the other's.
    func testDeviceValuesOfASplitMinuteAreTheLaterSamples() throws {
        let minute = start.addingTimeInterval(60)
        let early = ActivitySample(
            time: minute.addingTimeInterval(10), sensor: .heartRateBand, heartRate: 90, cadence: 12,
            device: DeviceMinuteValues(kind: 0x50, intensity: 14))
        let late = ActivitySample(
            time: minute.addingTimeInterval(50), sensor: .heartRateBand, heartRate: 96, cadence: 20,
            device: DeviceMinuteValues(kind: 0x01, intensity: 61))
        let plain = ActivitySample(time: minute.addingTimeInterval(55), sensor: .heartRateBand, heartRate: 98)
        let values = { (imports: [[ActivityBatch]]) throws -> [String] in
            try sqlite3(
                self.stored(imports).path,
                "SELECT device_activity_kind || ' ' || device_intensity || ' ' || sample_count FROM activity_minute;"
            ).split(separator: "\n").map(String.init)
        }
        XCTAssertEqual(try values([[batch([early, late], importedAt: 120)]]), ["1 61 2"])
        XCTAssertEqual(try values([[batch([early], importedAt: 70)], [batch([late], importedAt: 120)]]), ["1 61 2"])
        XCTAssertEqual(try values([[batch([late], importedAt: 120)], [batch([early], importedAt: 70)]]), ["1 61 2"])
        XCTAssertEqual(try values([[batch([late], importedAt: 70)], [batch([plain], importedAt: 120)]]), ["1 61 2"])
        XCTAssertEqual(
            try splitMinute([[batch([early], importedAt: 70)], [batch([late], importedAt: 120)]])?.device,
            DeviceMinuteValues(kind: 0x01, intensity: 61))
    }

    /// v11 adds the device's own columns to a v10 store with minutes and parts: every row kept,
    /// the new columns NULL, and their CHECKs refusing what no device sends.
    func testV11KeepsAV10StoresMinutesAndParts() throws {
        let file = try olderStore(
            migratedUpTo: "v10-activity-minute-parts",
            holding: """
                INSERT INTO source (family, serial, model) VALUES ('huami', 'BAND-1', 'Mi Band 5');
                INSERT INTO import_run (source_id, started_at, finished_at, mode, records_read, records_added,
                                        records_already_stored, records_skipped, time_method)
                VALUES (1, '2024-05-02 06:01:32.000', '2024-05-02 06:01:32.000', 'live', 2, 2, 0, 0, 'host-anchored');
                INSERT INTO activity_minute (source_id, minute, heart_rate_bpm, step_cadence_spm, sensors, sample_count, import_run_id)
                VALUES (1, '2024-05-02 06:00:00.000', 100, 12, '["heart-rate-band"]', 1, 1),
                       (1, '2024-05-02 06:01:00.000', 104, 20, '["heart-rate-band"]', 1, 1);
                INSERT INTO activity_minute_part (source_id, minute, first_sample, last_sample, heart_rate_sum, heart_rate_count,
                    step_cadence_sum, step_cadence_count, crank_cadence_sum, crank_cadence_count, speed_sum, speed_count,
                    walking_count, running_count, sensors, running_totals, sample_count, import_run_id)
                VALUES (1, '2024-05-02 06:01:00.000', '2024-05-02 06:01:00.000', '2024-05-02 06:01:00.000', 104, 1, 20, 1,
                        0, 0, 0, 0, 0, 0, '["heart-rate-band"]', '{}', 1, 1);
                """)
        let store = try file.open(zone: "UTC")
        XCTAssertEqual(
            try sqlite3(
                file.path,
                "SELECT minute || ' ' || heart_rate_bpm || ' ' || step_cadence_spm || ' ' || ifnull(device_activity_kind, '-') || ' ' "
                    + "|| ifnull(device_intensity, '-') FROM activity_minute ORDER BY minute;"),
            "2024-05-02 06:00:00.000 100.0 12.0 - -\n2024-05-02 06:01:00.000 104.0 20.0 - -")
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT heart_rate_sum || ' ' || ifnull(device_intensity, '-') FROM activity_minute_part;"), "104.0 -")
        XCTAssertEqual(try store.activityMinutes().map(\.minute.device), [nil, nil])
        for bad in ["device_activity_kind = 256", "device_intensity = -1"] {
            XCTAssertThrowsError(try sqlite3(file.path, "UPDATE activity_minute SET \(bad);")) { error in
                XCTAssertTrue("\(error)".contains("CHECK constraint failed"), "\(error)")
            }
        }
        try sqlite3(file.path, "UPDATE activity_minute SET device_activity_kind = 255, device_intensity = 0;")
        XCTAssertEqual(try store.activityMinutes().map(\.minute.device), Array(repeating: DeviceMinuteValues(kind: 255, intensity: 0), count: 2))
    }
}
