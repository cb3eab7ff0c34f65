import Foundation
import ImportTestSupport
import Model
import Store
import Sync
import TestSupport
import XCTest

/// `glucobridge sync` against a real PostgreSQL server (see ``TestServer``).
final class SyncTests: XCTestCase {
    /// Local device readings, one text line each, as the server must hold them.
    private func localReadings(_ store: TestStore) throws -> [String] {
        try store.sqlite3(
            """
            SELECT s.family || '|' || s.serial || '|' || g.device_record_key || '|' || g.time || '|' || CAST(round(g.mgdl) AS INTEGER) || '|' || d.date
            FROM glucose g JOIN source s ON s.id = g.source_id JOIN day d ON d.id = g.day_id ORDER BY 1;
            """
        ).split(separator: "\n").map(String.init)
    }

    private func serverReadings(_ database: TestDatabase, patient: String) async throws -> [String] {
        try await database.rows(
            """
            SELECT s.family || '|' || s.serial || '|' || g.device_record_key || '|'
                   || to_char(g.time AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') || '|' || round(g.mgdl)::bigint || '|' || g.day
            FROM glucose_reading g JOIN source s ON s.id = g.source_id WHERE g.patient_id = '\(patient)' ORDER BY 1
            """
        ).map { $0[0] }
    }

    func testFirstSyncCopiesEveryRowAndASecondSendsNothing() async throws {
        let database = try await TestDatabase()
        let local = try TestStore()
        try local.importReadings(1200)
        try local.importReadings(30, source: TestStore.meter)
        try local.importActivity()
        try local.addLogs()

        let first = try await database.sync(local.store, patient: "p-100", batchSize: 500)
        XCTAssertEqual(first.written["glucose_reading"], 1230)
        XCTAssertEqual(first.written["source"], 3)
        XCTAssertEqual(first.written["import_run"], 3)
        XCTAssertEqual(first.written["activity_minute"], 60)
        XCTAssertEqual(first.written["activity_session"], 1)
        let session = try await database.rows(
            """
            SELECT s.serial, a.device_record_key, a.name, a.duration_seconds::text, a.favourite::text
            FROM activity_session a JOIN source s ON s.id = a.source_id WHERE a.patient_id = 'p-100'
            """)
        XCTAssertEqual(session, [["C0:11:22:33:44:55", "exercise:2024-03-01T17:10Z", "Walking", "2400", "false"]])
        let heartRates = try await database.rows(
            "SELECT count(*) || '|' || sum(heart_rate_bpm)::bigint FROM activity_minute WHERE patient_id = 'p-100'")
        XCTAssertEqual(heartRates, [[try local.sqlite3("SELECT count(*) || '|' || CAST(sum(heart_rate_bpm) AS INTEGER) FROM activity_minute;")]])
        let onServer = try await serverReadings(database, patient: "p-100")
        XCTAssertEqual(onServer, try localReadings(local))
        // 1200 readings in batches of 500: three transactions.
        XCTAssertGreaterThanOrEqual(first.batches, 3 + 1 + 1)

        try await assertServerMatches(local, database, patient: "p-100")
        let meal = try await database.rows(
            "SELECT uid, name, carbs_g::text, favourite::text, day::text FROM meal_log WHERE patient_id = 'p-100'")
        XCTAssertEqual(meal, [[try local.sqlite3("SELECT uid FROM meal;"), "Pasta", "80", "true", "2024-03-02"]])
        let favourites = try await database.rows("SELECT date::text FROM day WHERE patient_id = 'p-100' AND favourite")
        XCTAssertEqual(favourites, [["2024-03-02"]])
        let episodes = try await database.rows(
            "SELECT to_char(start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'), coalesce(end_time::text, 'open') FROM stress_episode")
        XCTAssertEqual(episodes, [["2024-03-02 11:00", "open"]])

        let second = try await database.sync(local.store, patient: "p-100")
        XCTAssertTrue(second.isEmpty, second.summary)
        XCTAssertEqual(second.batches, 0)
        XCTAssertEqual(second.summary, "nothing to send: the server holds this store's data")
        await database.drop()
    }

    /// The server loses the last batch and its cursor goes back with it, behind the sync's back
    /// (as a standby promoted without that batch would have it): the next batch's compare-and-set
    /// finds the cursor elsewhere, is rolled back, and the sync sends again from the server's
    /// cursor. Nothing is skipped, nothing is there twice, and a second sync sends nothing.
    func testACursorRolledBackBehindTheSyncsBackIsFollowedAndNothingIsSkippedOrDuplicated() async throws {
        let database = try await TestDatabase()
        let local = try TestStore()
        try local.importReadings(1000)
        let kept = try XCTUnwrap(Int64(try local.sqlite3("SELECT id FROM glucose WHERE device_record_key = 'egv:249';")))
        let lost = try XCTUnwrap(Int64(try local.sqlite3("SELECT id FROM glucose WHERE device_record_key = 'egv:499';")))

        let rolledBack = RollBackOnce()
        var sync = try StoreSync(
            store: local.store, target: database.target, password: database.server.password, patient: "p-cas", batchSize: 250)
        sync.batchCommitted = { cursor, position in
            guard cursor == "glucose_reading_id", position == lost, await rolledBack.first() else { return }
            // The readings egv:250 to egv:499 (the batch just committed) are gone, and the cursor
            // is back before them.
            _ = try? await database.rows(
                "DELETE FROM glucose_reading WHERE patient_id = 'p-cas' AND substring(device_record_key FROM 5)::int BETWEEN 250 AND 499")
            _ = try? await database.rows("UPDATE sync_cursor SET glucose_reading_id = \(kept) WHERE patient_id = 'p-cas'")
        }
        let report = try await sync.run()
        let happened = await rolledBack.done
        XCTAssertTrue(happened, "the cursor was rolled back during the sync")
        let stored = try await database.count("glucose_reading", patient: "p-cas")
        XCTAssertEqual(stored, 1000)
        // 250 + 250 before the roll-back, then 250 again (egv:250 to egv:499) and the last 500.
        XCTAssertEqual(report.written["glucose_reading"], 1250, report.summary)
        let onServer = try await serverReadings(database, patient: "p-cas")
        XCTAssertEqual(onServer, try localReadings(local))
        let cursor = try await database.rows("SELECT glucose_reading_id::text FROM sync_cursor WHERE patient_id = 'p-cas'")
        XCTAssertEqual(cursor, [[try local.sqlite3("SELECT max(id) FROM glucose;")]])

        let second = try await database.sync(local.store, patient: "p-cas")
        XCTAssertTrue(second.isEmpty, second.summary)
        await database.drop()
    }

    /// A cursor moved by another program at every batch: the sync starts again a few times, then
    /// stops with a message saying so, having kept what it committed.
    func testACursorThatKeepsMovingStopsTheSyncWithAClearError() async throws {
        let database = try await TestDatabase()
        let local = try TestStore()
        try local.importReadings(600)
        let first = try XCTUnwrap(Int64(try local.sqlite3("SELECT id FROM glucose WHERE device_record_key = 'egv:99';")))
        var sync = try StoreSync(
            store: local.store, target: database.target, password: database.server.password, patient: "p-cas-moving", batchSize: 100)
        sync.batchCommitted = { cursor, _ in
            guard cursor == "glucose_reading_id" else { return }
            _ = try? await database.rows("UPDATE sync_cursor SET glucose_reading_id = 0 WHERE patient_id = 'p-cas-moving'")
        }
        do {
            _ = try await sync.run()
            XCTFail("the sync ended although its cursor moved at every batch")
        } catch {
            XCTAssertEqual(error, .cursorMoved(cursor: "glucose_reading_id", expected: first, found: 0))
            XCTAssertEqual(
                "\(error)",
                "the server's sync cursor glucose_reading_id was 0, not \(first) as this sync's last batch left it, again and again "
                    + "(is another program changing sync_cursor?); nothing stored was lost: run the sync again")
        }
        let kept = try await database.count("glucose_reading", patient: "p-cas-moving")
        XCTAssertEqual(kept, 100, "every batch committed is kept")
        let again = try await database.sync(local.store, patient: "p-cas-moving")
        XCTAssertEqual(again.written["glucose_reading"], 500, again.summary)
        let onServer = try await serverReadings(database, patient: "p-cas-moving")
        XCTAssertEqual(onServer, try localReadings(local))
        await database.drop()
    }

    func testAnEditAndARemovalReachTheServer() async throws {
        let database = try await TestDatabase()
        let local = try TestStore()
        try local.importReadings(50)
        try local.importActivity()
        try local.addLogs()
        _ = try await database.sync(local.store, patient: "p-edit")

        // The app edits a meal and removes the insulin log through plain SQL, as another program would.
        _ = try local.sqlite3("UPDATE meal SET carbs_g = 95, name = 'Pasta, large';")
        _ = try local.sqlite3("DELETE FROM insulin;")
        try local.store.setFavourite(day: DayDate("2024-03-02")!, false)
        // Marking an imported session favourite is the one change device data can have.
        _ = try local.sqlite3(
            """
            INSERT INTO favourite (name) VALUES ('Walking');
            UPDATE exercise SET favourite_id = last_insert_rowid() WHERE source_id IS NOT NULL;
            """)
        let report = try await database.sync(local.store, patient: "p-edit")
        XCTAssertEqual(report.written["activity_session"], 1, report.summary)
        let favouriteSessions = try await database.rows(
            "SELECT count(*)::text FROM activity_session WHERE patient_id = 'p-edit' AND favourite")
        XCTAssertEqual(favouriteSessions, [["1"]])
        XCTAssertEqual(report.deleted["insulin_log"], 1, report.summary)
        XCTAssertEqual(report.written["meal_log"], 1, report.summary)
        XCTAssertEqual(report.written["day"], 1, report.summary)
        XCTAssertNil(report.written["glucose_reading"])

        let meal = try await database.rows("SELECT name, carbs_g::text FROM meal_log WHERE patient_id = 'p-edit'")
        XCTAssertEqual(meal, [["Pasta, large", "95"]])
        let insulinLogs = try await database.count("insulin_log", patient: "p-edit")
        XCTAssertEqual(insulinLogs, 0)
        let favouriteDays = try await database.rows("SELECT count(*)::text FROM day WHERE patient_id = 'p-edit' AND favourite")
        XCTAssertEqual(favouriteDays, [["0"]])
        try await assertServerMatches(local, database, patient: "p-edit")
        await database.drop()
    }

    /// A session's distance and energy (v12) reach the server: a band's logged workout as
    /// `activity_session`, an app log as `exercise_log`, and the app's later edit of them.
    func testExerciseDistanceAndEnergyReachTheServer() async throws {
        let database = try await TestDatabase()
        let local = try TestStore()
        let start = utc("2024-03-01T17:00:00Z")
        var workout = ExerciseSession(
            start: start, minutes: 40, kind: .walking, intensity: .moderate, minutesByIntensity: [.moderate: 40])
        workout.measuredDuration = 2400
        workout.distance = 4175.5
        workout.energy = 213.5 * 4.184
        workout.recordKey = "workout:2024-03-01T17:00Z"
        _ = try local.store.save(
            ActivityBatch(
                source: TestStore.band, startedAt: start.addingTimeInterval(3700), mode: .live, origin: "sync tests",
                clock: ClockReport(hostTime: start.addingTimeInterval(3700), deviceTime: nil, method: .hostAnchored),
                minutes: [], sessions: [workout], samplesRead: 0))
        let logged = try local.store.add(
            ExerciseLog(
                time: utc("2024-03-02T12:00:00Z"), name: "Cycling", duration: 3600, intensity: .vigorous, distance: 25_300, energy: 2_100))
        _ = try await database.sync(local.store, patient: "p-distance")
        let session = try await database.rows(
            "SELECT device_record_key, distance_m::text, round(energy_kj::numeric, 6)::text FROM activity_session WHERE patient_id = 'p-distance'")
        XCTAssertEqual(session, [["workout:2024-03-01T17:00Z", "4175.5", "893.284000"]])
        let log = try await database.rows("SELECT name, distance_m::text, energy_kj::text FROM exercise_log WHERE patient_id = 'p-distance'")
        XCTAssertEqual(log, [["Cycling", "25300", "2100"]])

        var edited = logged
        edited.log.distance = 25_310
        edited.log.energy = nil
        _ = try local.store.update(edited)
        let report = try await database.sync(local.store, patient: "p-distance")
        XCTAssertEqual(report.written["exercise_log"], 1, report.summary)
        let after = try await database.rows(
            "SELECT distance_m::text, coalesce(energy_kj::text, 'none') FROM exercise_log WHERE patient_id = 'p-distance'")
        XCTAssertEqual(after, [["25310", "none"]])
        await database.drop()
    }

    func testAKilledSyncResumesToExactlyTheStoreAndASecondSyncOfThePatientIsRefused() async throws {
        let database = try await TestDatabase()
        let local = try TestStore()
        try local.importReadings(24_000)
        try local.addLogs()
        let other = try TestStore()
        try other.importReadings(10)

        let environment = ProcessInfo.processInfo.environment.merging(["PGPASSWORD": database.server.password]) { $1 }
        let glucobridge = BuiltProducts.executable("glucobridge")
        let process = Process()
        process.executableURL = glucobridge
        process.arguments = ["sync", "--to", database.url, "--patient", "p-kill", "--store", local.path, "--batch-size", "20"]
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        try process.run()

        // Wait until some batches are in, then try a second machine of the same patient.
        // Polled with a generous bound: a loaded machine only makes the sync slower, which this wants.
        var sent = 0
        let deadline = Date().addingTimeInterval(120)
        while sent < 200, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
            sent = (try? await database.count("glucose_reading", patient: "p-kill")) ?? 0
        }
        XCTAssertGreaterThanOrEqual(sent, 200)
        let refused = try runProcess(
            glucobridge, ["sync", "--to", database.url, "--patient", "p-kill", "--store", other.path, "--lock-wait", "0"],
            environment: environment)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("another sync of patient p-kill"), refused.stderr)

        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        let partial = try await database.count("glucose_reading", patient: "p-kill")
        XCTAssertLessThan(partial, 24_000, "the sync finished before it was killed: make the store larger")
        XCTAssertEqual(partial % 20, 0, "only whole batches are committed")

        let resumed = try runProcess(
            glucobridge, ["sync", "--to", database.url, "--patient", "p-kill", "--store", local.path], environment: environment)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stdout.contains("glucose_reading \(24_000 - partial)"), resumed.stdout)
        let onServer = try await serverReadings(database, patient: "p-kill")
        XCTAssertEqual(onServer, try localReadings(local))
        try await assertServerMatches(local, database, patient: "p-kill")

        let again = try runProcess(
            glucobridge, ["sync", "--to", database.url, "--patient", "p-kill", "--store", local.path], environment: environment)
        XCTAssertEqual(again.stdout, "nothing to send: the server holds this store's data\n")
        await database.drop()
    }

    /// Two stores of one patient holding the same device's readings (the receiver was read on
    /// two machines): the second store's rows meet the first's on the server, are merged by key
    /// instead of copied, and the server holds each reading once.
    func testTwoStoresOfOnePatientWithTheSameDeviceHoldEachReadingOnce() async throws {
        let database = try await TestDatabase()
        let first = try TestStore()
        try first.importReadings(1200)
        let second = try TestStore()
        try second.importReadings(1500)
        try second.addLogs()

        let one = try await database.sync(first.store, patient: "p-two", batchSize: 500)
        XCTAssertEqual(one.written["glucose_reading"], 1200, one.summary)
        let two = try await database.sync(second.store, patient: "p-two", batchSize: 500)
        // The first 1200 readings are there already; the device's row too, with the same model.
        XCTAssertEqual(two.written["glucose_reading"], 300, two.summary)
        XCTAssertEqual(two.written["source"] ?? 0, 0, two.summary)
        XCTAssertEqual(two.written["import_run"], 1, two.summary)
        XCTAssertEqual(two.written["meal_log"], 1, two.summary)
        let onServer = try await serverReadings(database, patient: "p-two")
        XCTAssertEqual(onServer, try localReadings(second))
        let sources = try await database.count("source", patient: "p-two")
        XCTAssertEqual(sources, 1)

        let again = try await database.sync(second.store, patient: "p-two")
        XCTAssertTrue(again.isEmpty, again.summary)
        await database.drop()
    }

    func testManyPatientsSyncAtOnce() async throws {
        let database = try await TestDatabase()
        let stores = try (0..<6).map { index in
            let local = try TestStore()
            try local.importReadings(400 + index * 50)
            try local.addLogs()
            return local
        }
        try await withThrowingTaskGroup(of: SyncReport.self) { group in
            for (index, local) in stores.enumerated() {
                group.addTask { try await database.sync(local.store, patient: "p-\(index)", batchSize: 100) }
            }
            for try await report in group { XCTAssertGreaterThan(report.rowsWritten, 400) }
        }
        for (index, local) in stores.enumerated() {
            let onServer = try await serverReadings(database, patient: "p-\(index)")
            XCTAssertEqual(onServer, try localReadings(local))
            try await assertServerMatches(local, database, patient: "p-\(index)")
        }
        await database.drop()
    }

    func testTLSIsUsedAndTheServerCertificateChecked() async throws {
        let database = try await TestDatabase()
        let local = try TestStore()
        try local.importReadings(20)
        let ca = database.server.certificateAuthority
        let report = try await database.sync(local.store, patient: "p-tls", query: "?sslmode=verify-full&sslrootcert=\(ca)")
        XCTAssertEqual(report.written["glucose_reading"], 20)

        // A CA that did not sign the server's certificate: the handshake fails, so TLS was in use.
        let folder = try Fixtures.temporaryDirectory()
        let strangerCA = folder.appendingPathComponent("stranger.crt").path
        let made = try runProcess(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=stranger",
                "-keyout", folder.appendingPathComponent("stranger.key").path, "-out", strangerCA,
            ])
        XCTAssertEqual(made.status, 0, made.stderr)
        do {
            _ = try await database.sync(local.store, patient: "p-tls", query: "?sslmode=verify-full&sslrootcert=\(strangerCA)")
            XCTFail("a server certificate from another CA was accepted")
        } catch SyncError.unreachable(_, let reason) {
            XCTAssertFalse(reason.isEmpty)
        }
        // require: encrypted without checking the certificate.
        _ = try local.sqlite3("INSERT INTO insulin (day_id, time, units) SELECT id, '2024-03-01 08:00:00.000', 2 FROM day LIMIT 1;")
        let required = try await database.sync(local.store, patient: "p-tls", query: "?sslmode=require")
        XCTAssertEqual(required.written["insulin_log"], 1)
        await database.drop()
    }

    func testAMissingStoreIsRefusedNotCreated() throws {
        let folder = try Fixtures.temporaryDirectory()
        let missing = folder.appendingPathComponent("none.sqlite").path
        let result = try runProcess(
            BuiltProducts.executable("glucobridge"),
            ["sync", "--to", "postgresql://someone@127.0.0.1:1/db", "--patient", "p", "--store", missing])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "glucobridge: the store \(missing) does not exist: nothing to sync (give --store PATH)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
    }

    func testAWrongPasswordIsRefusedByTheServerWithItsMessage() async throws {
        let database = try await TestDatabase()
        let local = try TestStore()
        do {
            _ = try await StoreSync(store: local.store, target: database.target, password: "wrong", patient: "p").run()
            XCTFail("a wrong password was accepted")
        } catch SyncError.unreachable(_, let reason) {
            XCTAssertTrue(reason.contains("password authentication failed"), reason)
        }
        await database.drop()
    }

    /// Every kind of row of `local` is on the server under `patient`, as many times as in the store.
    private func assertServerMatches(
        _ local: TestStore, _ database: TestDatabase, patient: String, file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let pairs: [(String, String)] = [
            ("source", "SELECT count(*) FROM source"),
            ("import_run", "SELECT count(*) FROM import_run"),
            ("glucose_reading", "SELECT count(*) FROM glucose WHERE source_id IS NOT NULL"),
            ("glucose_log", "SELECT count(*) FROM glucose WHERE source_id IS NULL"),
            ("meal_log", "SELECT count(*) FROM meal"),
            ("insulin_log", "SELECT count(*) FROM insulin"),
            ("exercise_log", "SELECT count(*) FROM exercise WHERE source_id IS NULL"),
            ("activity_session", "SELECT count(*) FROM exercise WHERE source_id IS NOT NULL"),
            ("activity_minute", "SELECT count(*) FROM activity_minute"),
            ("illness_episode", "SELECT count(*) FROM illness"),
            ("stress_episode", "SELECT count(*) FROM stress"),
            ("day", "SELECT count(*) FROM day"),
        ]
        for (table, sql) in pairs {
            let expected = Int(try local.sqlite3(sql + ";"))
            let actual = try await database.count(table, patient: patient)
            XCTAssertEqual(actual, expected, "\(table) of \(patient)", file: file, line: line)
        }
        let localUIDs = try local.sqlite3("SELECT uid FROM meal UNION ALL SELECT uid FROM insulin ORDER BY 1;")
        let serverUIDs = try await database.rows(
            """
            SELECT uid FROM meal_log WHERE patient_id = '\(patient)'
            UNION ALL SELECT uid FROM insulin_log WHERE patient_id = '\(patient)' ORDER BY 1
            """
        ).map { $0[0] }.joined(separator: "\n")
        XCTAssertEqual(serverUIDs, localUIDs, file: file, line: line)
    }
}

/// Says yes once: the first call of ``first()``.
actor RollBackOnce {
    private(set) var done = false

    func first() -> Bool {
        defer { done = true }
        return !done
    }
}
