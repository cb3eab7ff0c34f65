import Foundation
import GRDB
import ImportTestSupport
import Model
import TestSupport
import XCTest

@testable import Store

/// Activity imports: minutes kept once per source and minute, sessions written once as imported
/// Exercise logs on the Day of their start, all in one transaction; the user profile.
final class ActivityStoreTests: XCTestCase {
    let band = DeviceSource(family: "ble-heart-rate", serial: "C0:FF:EE:00:00:01", model: "HRM-Pro")

    /// Minutes of a band and pod from `start`, at 118 steps/min and a heart rate rising 1 bpm a minute.
    func minutes(from start: Date, count: Int) -> [ActivityMinute] {
        (0..<count).map { i in
            ActivityMinute(
                start: start.addingTimeInterval(Double(i) * 60), heartRate: 110 + Double(i), stepCadence: 118,
                speed: 1.7, distance: 102, energy: 21.5, gait: .walking, sensors: [.heartRateBand, .runningPod],
                sampleCount: 90)
        }
    }

    /// 22:30–23:00 local on 2024-05-01 in Los Angeles (05:30 UTC on the 2nd), and 09:00–09:40 local on the 2nd.
    func batch(minutes: [ActivityMinute]? = nil, sessions: [ExerciseSession]? = nil) -> ActivityBatch {
        let evening = utc("2024-05-02T05:30:00Z")
        let morning = utc("2024-05-02T16:00:00Z")
        return ActivityBatch(
            source: band, startedAt: utc("2024-05-02T17:00:00Z"), mode: .replayPassive, origin: "walk.btsnoop",
            clock: ClockReport(hostTime: utc("2024-05-02T17:00:00Z"), deviceTime: nil, method: .hostAnchored),
            minutes: minutes ?? self.minutes(from: evening, count: 30) + self.minutes(from: morning, count: 40),
            sessions: sessions ?? [
                ExerciseSession(start: evening, minutes: 30, kind: .walking, intensity: .moderate, minutesByIntensity: [.moderate: 30]),
                ExerciseSession(
                    start: morning, minutes: 40, kind: .running, intensity: .vigorous,
                    minutesByIntensity: [.moderate: 15, .vigorous: 25]),
            ],
            samplesRead: 70 * 90 + 3, events: [ImportEvent(name: "heart-rate-without-contact", count: 3)],
            notes: ["from a test"])
    }

    func testSessionsBecomeImportedExerciseLogsOnTheDayOfTheirStart() throws {
        let file = try StoreFile()
        let store = try file.open()
        let summary = try store.save(batch())
        XCTAssertEqual(summary.sessionsAdded, 2)
        XCTAssertEqual(summary.sessionsAlreadyStored, 0)
        XCTAssertEqual(summary.minutesAdded, 70)
        XCTAssertEqual(summary.days.map(\.description), ["2024-05-01", "2024-05-02"])
        XCTAssertEqual(summary.description, "2 new exercise sessions, 0 already stored; 70 new activity minutes, 0 already stored")

        let evening = try store.logs(ExerciseLog.self, of: XCTUnwrap(DayDate("2024-05-01")))
        XCTAssertEqual(evening.count, 1)
        let walk = try XCTUnwrap(evening.first)
        XCTAssertEqual(walk.time, utc("2024-05-02T05:30:00Z"))
        XCTAssertEqual(walk.name, "Walking")
        XCTAssertEqual(walk.duration, 1800)
        XCTAssertEqual(walk.intensity, .moderate)
        XCTAssertEqual(walk.source, band)
        XCTAssertEqual(walk.recordKey, "exercise:2024-05-02T05:30Z")
        let morning = try store.logs(ExerciseLog.self, of: XCTUnwrap(DayDate("2024-05-02")))
        XCTAssertEqual(morning.map { "\($0.name) \($0.duration) \($0.intensity.rawValue)" }, ["Running 2400.0 vigorous"])

        // Imported sessions are read-only through the app's path.
        XCTAssertStoreError(.importedLogIsReadOnly(kind: .exercise, id: walk.id.rawValue, source: band.description)) {
            try store.remove(walk.id)
        }
        // The run is recorded with its counts: samples read, minutes added, values left out.
        XCTAssertEqual(
            try sqlite3(
                file.path,
                """
                SELECT records_read, records_added, records_already_stored, records_skipped, mode, time_method, events_json
                FROM import_run;
                """),
            #"6303|70|0|3|replay-passive|host-anchored|[{"count":3,"name":"heart-rate-without-contact"}]"#)
        XCTAssertEqual(try sqlite3(file.path, "SELECT count(*) FROM exercise WHERE import_run_id = 1;"), "2")
        XCTAssertEqual(
            try sqlite3(file.path, "SELECT minute, heart_rate_bpm, sensors, gait FROM activity_minute ORDER BY minute LIMIT 1;"),
            #"2024-05-02 05:30:00.000|110.0|["heart-rate-band","running-pod"]|walking"#)
    }

    func testWritingTheSameImportTwiceAddsNothing() throws {
        let file = try StoreFile()
        let store = try file.open()
        _ = try store.save(batch())
        let before = try dump(file.path).replacingOccurrences(of: #"INSERT INTO import_run[^\n]*\n"#, with: "", options: .regularExpression)

        let again = try store.save(batch())
        XCTAssertEqual(again.sessionsAdded, 0)
        XCTAssertEqual(again.sessionsAlreadyStored, 2)
        XCTAssertEqual(again.minutesAdded, 0)
        XCTAssertEqual(again.minutesAlreadyStored, 70)
        XCTAssertEqual(again.days, [])
        XCTAssertEqual(try count("exercise", in: file.path), 2)
        XCTAssertEqual(try count("activity_minute", in: file.path), 70)
        XCTAssertEqual(try count("day", in: file.path), 2)
        XCTAssertEqual(try sqlite3(file.path, "SELECT records_added, records_already_stored FROM import_run ORDER BY id;"), "70|0\n0|70")
        let after = try dump(file.path).replacingOccurrences(of: #"INSERT INTO import_run[^\n]*\n"#, with: "", options: .regularExpression)
        XCTAssertEqual(after, before, "apart from its import_run row, a re-import changes nothing")

        // A later import that overlaps: only its new minutes and its new session are added;
        // the stored minutes keep their first values.
        let later = utc("2024-05-02T16:20:00Z")
        var changed = minutes(from: later, count: 40)
        changed[0].heartRate = 180
        let overlapping = try store.save(
            batch(
                minutes: changed,
                sessions: [ExerciseSession(start: later, minutes: 40, kind: .walking, intensity: .moderate, minutesByIntensity: [.moderate: 40])]))
        XCTAssertEqual(overlapping.minutesAdded, 20)
        XCTAssertEqual(overlapping.minutesAlreadyStored, 20)
        XCTAssertEqual(overlapping.sessionsAdded, 1)
        XCTAssertEqual(try count("activity_minute", in: file.path), 90)
        XCTAssertEqual(try sqlite3(file.path, "SELECT heart_rate_bpm FROM activity_minute WHERE minute = '2024-05-02 16:20:00.000';"), "130.0")
    }

    /// A repeated minute or session within one batch is kept once; a differing one is refused.
    func testRepeatsWithinABatch() throws {
        let file = try StoreFile()
        let store = try file.open()
        var repeated = batch()
        repeated.minutes.append(repeated.minutes[0])
        repeated.sessions.append(repeated.sessions[0])
        let summary = try store.save(repeated)
        XCTAssertEqual(summary.minutesAdded, 70)
        XCTAssertEqual(summary.minutesAlreadyStored, 1)
        XCTAssertEqual(summary.sessionsAdded, 2)
        XCTAssertEqual(summary.sessionsAlreadyStored, 1)

        var differing = batch()
        differing.sessions.append(
            ExerciseSession(
                start: utc("2024-05-02T05:30:00Z"), minutes: 31, kind: .walking, intensity: .moderate, minutesByIntensity: [.moderate: 31]))
        XCTAssertStoreError(.invalidBatch(reason: "the exercise session \"exercise:2024-05-02T05:30Z\" appears twice with different values")) {
            try store.save(differing)
        }
    }

    func testMinutesAreReadBackByRangeAndSource() throws {
        let file = try StoreFile()
        let store = try file.open()
        let written = batch()
        _ = try store.save(written)
        let pod = DeviceSource(family: "ble-rsc", serial: "C0:FF:EE:00:00:02")
        _ = try store.save(
            ActivityBatch(
                source: pod, startedAt: written.startedAt, mode: .live, origin: nil, clock: written.clock,
                minutes: minutes(from: utc("2024-05-02T16:00:00Z"), count: 2), sessions: [], samplesRead: 60))

        let all = try store.activityMinutes()
        XCTAssertEqual(all.count, 72)
        XCTAssertEqual(all.filter { $0.source == band }.map(\.minute), written.minutes, "every value comes back as written")

        let window = try store.activityMinutes(from: utc("2024-05-02T16:00:00Z"), to: utc("2024-05-02T16:02:00Z"))
        XCTAssertEqual(
            window.map { "\(StoreTime.string($0.minute.start)) \($0.source.family)" },
            [
                "2024-05-02 16:00:00.000 ble-heart-rate", "2024-05-02 16:00:00.000 ble-rsc",
                "2024-05-02 16:01:00.000 ble-heart-rate", "2024-05-02 16:01:00.000 ble-rsc",
            ])
        XCTAssertEqual(try store.activityMinutes(source: pod).count, 2)
        XCTAssertEqual(
            try store.activityMinutes(source: band, from: utc("2024-05-02T05:45:00Z"), to: utc("2024-05-02T06:00:00Z")).map(\.minute.heartRate),
            (15..<30).map { 110 + Double($0) })
        XCTAssertEqual(try store.activityMinutes(source: DeviceSource(family: "ble-rsc", serial: "unknown")), [])
    }

    func testMinuteReadsUseIndexes() throws {
        let file = try StoreFile()
        let store = try file.open()
        func plan(_ condition: String, _ arguments: StatementArguments) throws -> [String] {
            try store.database.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + ActivityMinuteQuery.sql(where: condition), arguments: arguments)
                    .map { $0["detail"] as String }
            }
        }
        let range: StatementArguments = ["2024-05-01 00:00:00.000", "2024-05-02 00:00:00.000"]
        let bySource = try plan("m.source_id = ? AND m.minute >= ? AND m.minute < ?", [1] + range)
        XCTAssertEqual(bySource.first, "SEARCH m USING PRIMARY KEY (source_id=? AND minute>? AND minute<?)", "\(bySource)")
        let byTime = try plan("m.minute >= ? AND m.minute < ?", range)
        XCTAssertEqual(byTime.first, "SEARCH m USING INDEX activity_minute_by_time (minute>? AND minute<?)", "\(byTime)")
        for details in [bySource, byTime] {
            XCTAssertFalse(details.contains { $0.contains("TEMP B-TREE") }, "\(details)")
        }
    }

    /// Values the store refuses are named, and nothing of the import is written.
    func testImpossibleValuesAreRefusedWithNothingWritten() throws {
        let file = try StoreFile()
        let store = try file.open()
        var hot = batch()
        hot.minutes[3].heartRate = 400
        XCTAssertStoreError(
            .invalidBatch(
                reason: "the activity minute 2024-05-01 22:33 (America/Los_Angeles) has a heart rate of 400.0 bpm, not within 0 < bpm < 300")
        ) {
            try store.save(hot)
        }
        var offMinute = batch()
        offMinute.minutes[0].start = utc("2024-05-02T05:30:30Z")
        XCTAssertStoreError(.invalidBatch(reason: "the activity minute 2024-05-01 22:30:30 (America/Los_Angeles) does not start on a whole minute")) {
            try store.save(offMinute)
        }
        var backwards = batch()
        backwards.minutes[1].distance = -5
        XCTAssertThrowsError(try store.save(backwards))
        var empty = batch()
        empty.sessions[0].minutes = 0
        XCTAssertStoreError(.invalidBatch(reason: "the exercise session \"exercise:2024-05-02T05:30Z\" lasts 0 minutes")) {
            try store.save(empty)
        }
        for table in ["activity_minute", "exercise", "day", "import_run", "source"] {
            XCTAssertEqual(try count(table, in: file.path), 0, table)
        }
    }

    /// A failure in the middle of the transaction (here another program's trigger refusing the
    /// sessions) rolls back the minutes, Days, source and run written before it.
    func testAFailureInsideTheTransactionLeavesTheStoreAsItWas() throws {
        let file = try StoreFile()
        let store = try file.open()
        try sqlite3(file.path, "CREATE TRIGGER refuse BEFORE INSERT ON exercise BEGIN SELECT RAISE(ABORT, 'refused by test'); END;")
        XCTAssertThrowsError(try store.save(batch())) { error in
            XCTAssertTrue("\(error)".contains("refused by test"), "\(error)")
        }
        for table in ["activity_minute", "exercise", "day", "import_run", "source"] {
            XCTAssertEqual(try count(table, in: file.path), 0, table)
        }
    }

    func testUserProfileIsKeptInTheStore() throws {
        let file = try StoreFile()
        do {
            let store = try file.open()
            XCTAssertEqual(try store.userProfile(), UserProfile())
            try store.setUserProfile(UserProfile(age: 40, restingHeartRate: 58))
            try store.setUserProfile(UserProfile(age: 41, maxHeartRate: 186, restingHeartRate: 55))
        }
        let reopened = try file.open()
        let profile = try reopened.userProfile()
        XCTAssertEqual(profile, try UserProfile(age: 41, maxHeartRate: 186, restingHeartRate: 55))
        XCTAssertEqual(profile.heartRateMethod, .reserve)
        XCTAssertEqual(try sqlite3(file.path, "SELECT * FROM user_profile;"), "1|41|186|55")
        try reopened.setUserProfile(UserProfile())
        XCTAssertEqual(try reopened.userProfile(), UserProfile())
    }

    /// Other writers get the same rules from the schema.
    func testProfileAndMinuteChecksHoldForAnyWriter() throws {
        let file = try StoreFile()
        _ = try file.open()
        try sqlite3(file.path, "INSERT INTO source (family, serial) VALUES ('ble', '1');")
        let rejected = [
            "INSERT INTO user_profile (id, age_years) VALUES (1, 0);",
            "INSERT INTO user_profile (id, max_heart_rate_bpm) VALUES (1, 300);",
            // Age 90: Tanaka 145 bpm; a resting rate of 150 is not below it.
            "INSERT INTO user_profile (id, age_years, resting_heart_rate_bpm) VALUES (1, 90, 150);",
            "INSERT INTO user_profile (id, max_heart_rate_bpm, resting_heart_rate_bpm) VALUES (1, 120, 120);",
            "INSERT INTO user_profile (id) VALUES (2);",
            "INSERT INTO activity_minute (source_id, minute, sensors, sample_count) VALUES (1, '2024-05-01 06:30:10.000', '[\"cycling\"]', 1);",
            "INSERT INTO activity_minute (source_id, minute, sensors, sample_count) VALUES (1, '2024-05-01 06:30:00.000', '[]', 1);",
            "INSERT INTO activity_minute (source_id, minute, heart_rate_bpm, sensors, sample_count) VALUES (1, '2024-05-01 06:30:00.000', 0, '[\"cycling\"]', 1);",
            "INSERT INTO activity_minute (source_id, minute, gait, sensors, sample_count) VALUES (1, '2024-05-01 06:30:00.000', 'hopping', '[\"cycling\"]', 1);",
        ]
        for sql in rejected {
            XCTAssertThrowsError(try sqlite3(file.path, sql), sql)
        }
        try sqlite3(file.path, "INSERT INTO user_profile (id, age_years, resting_heart_rate_bpm) VALUES (1, 90, 144);")
        try sqlite3(
            file.path,
            """
            INSERT INTO activity_minute (source_id, minute, heart_rate_bpm, sensors, sample_count)
            VALUES (1, '2024-05-01 06:30:00.000', 72, '["heart-rate-band"]', 60);
            """)
        XCTAssertThrowsError(
            try sqlite3(
                file.path,
                """
                INSERT INTO activity_minute (source_id, minute, heart_rate_bpm, sensors, sample_count)
                VALUES (1, '2024-05-01 06:30:00.000', 75, '["heart-rate-band"]', 60);
                """), "one row per source and minute")
        let store = try file.open()
        XCTAssertEqual(try store.userProfile(), try UserProfile(age: 90, restingHeartRate: 144))
        XCTAssertEqual(try store.activityMinutes().map(\.minute.heartRate), [72])
    }

    /// A store made before v3 (with its readings) gains the activity tables on opening.
    func testAStoreFromBeforeV3IsMigrated() throws {
        let file = try StoreFile()
        do {
            let pool = try DatabasePool(path: file.path)
            try Migrations.migrator.migrate(pool, upTo: "v2-app-api-indexes")
            try pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO store_config VALUES (1, 'America/Los_Angeles', 54, 70, 180, 250);
                        INSERT INTO day (date) VALUES ('2024-05-01');
                        INSERT INTO exercise (day_id, time, name, duration_seconds, intensity)
                        VALUES (1, '2024-05-01 17:00:00.000', 'Yoga', 3600, 'light');
                        """)
            }
        }
        let store = try file.open()
        XCTAssertEqual(try store.logs(ExerciseLog.self).map(\.name), ["Yoga"])
        XCTAssertEqual(try store.save(batch()).sessionsAdded, 2)
        XCTAssertEqual(try store.logs(ExerciseLog.self).map(\.name), ["Yoga", "Walking", "Running"])
    }

    /// Everything one import read, written in one transaction: glucose and activity together,
    /// and a bad activity batch refuses the readings too.
    func testGlucoseAndActivityInOneTransaction() throws {
        let file = try StoreFile()
        let store = try file.open()
        let glucose = ImportTestSupport.batch(readings(count: 3, from: utc("2024-05-02T16:00:00Z")), cursors: ["egv": 3])
        let summary = try store.save(glucose: [glucose], activity: [batch()])
        XCTAssertEqual(summary.glucose.map(\.added), [3])
        XCTAssertEqual(summary.activity.map(\.minutesAdded), [70])
        XCTAssertEqual(summary.activity.map(\.sessionsAdded), [2])
        XCTAssertEqual(try count("import_run", in: file.path), 2)

        var bad = batch(minutes: minutes(from: utc("2024-05-03T16:00:30Z"), count: 1), sessions: [])
        bad.source = DeviceSource(family: "ble-heart-rate", serial: "OTHER")
        let more = ImportTestSupport.batch(readings(count: 2, from: utc("2024-05-03T16:00:00Z"), firstIndex: 10))
        XCTAssertThrowsError(try store.save(glucose: [more], activity: [bad]))
        XCTAssertEqual(try count("glucose", in: file.path), 3)
        XCTAssertEqual(try count("import_run", in: file.path), 2)
    }
}
