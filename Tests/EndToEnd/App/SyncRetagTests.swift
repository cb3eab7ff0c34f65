import Foundation
import ImportTestSupport
import Logging
import Model
import Pipeline
import PostgresNIO
import Store
import Sync
import TestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// New thresholds in a store re-tag the glucose readings and logs it sent before on the server
/// (against a real PostgreSQL server, see ``TestServer``).
final class SyncRetagTests: XCTestCase {
    /// 60, 75, 170, 240 mg/dL; in mmol/L to one decimal 3.3, 4.2, 9.4, 13.3 (the consensus:
    /// 3.0, 3.9, 10.0, 13.9).
    static let moved = try! GlucoseThresholds(veryLow: 60, low: 75, high: 170, veryHigh: 240)

    /// Values on and beside the edges of both the consensus and ``moved``, with their tags under
    /// each: some change, some do not.
    static let edges: [(value: Double, unit: GlucoseUnit, consensus: GlucoseTag, moved: GlucoseTag)] = [
        (53.9, .milligramsPerDeciliter, .hypoLevel2, .hypoLevel2),
        (54, .milligramsPerDeciliter, .hypoLevel1, .hypoLevel2),
        (60, .milligramsPerDeciliter, .hypoLevel1, .hypoLevel1),
        (70, .milligramsPerDeciliter, .inRange, .hypoLevel1),
        (75, .milligramsPerDeciliter, .inRange, .inRange),
        (170, .milligramsPerDeciliter, .inRange, .inRange),
        (170.1, .milligramsPerDeciliter, .inRange, .hyperLevel1),
        (180, .milligramsPerDeciliter, .inRange, .hyperLevel1),
        (180.1, .milligramsPerDeciliter, .hyperLevel1, .hyperLevel1),
        (240, .milligramsPerDeciliter, .hyperLevel1, .hyperLevel1),
        (240.1, .milligramsPerDeciliter, .hyperLevel1, .hyperLevel2),
        (4.1, .millimolesPerLiter, .inRange, .hypoLevel1),
        (9.4, .millimolesPerLiter, .inRange, .inRange),
        (9.5, .millimolesPerLiter, .inRange, .hyperLevel1),
        (10.0, .millimolesPerLiter, .inRange, .hyperLevel1),
        (10.1, .millimolesPerLiter, .hyperLevel1, .hyperLevel1),
    ]

    func testNewThresholdsReTagTheReadingsAndLogsSentBeforeAndAThirdSyncSendsNothing() async throws {
        let database = try await TestDatabase()
        let local = try TestStore()
        try local.importReadings(1200)
        try local.importEdges(from: utc("2024-03-10T00:00:00Z"))
        try local.addLogs()
        try local.addEdgeLogs(on: "2024-03-11")

        let first = try await database.sync(local.store, patient: "p-retag", batchSize: 250)
        XCTAssertEqual(first.written["glucose_reading"], 1200 + Self.edges.count, first.summary)
        XCTAssertEqual(first.rowsRetagged, 0, first.summary)
        try await assertTagsMatch(local, database, patient: "p-retag")
        let before = try await serverTags(database, patient: "p-retag")
        XCTAssertEqual(edgeTags(before.readings), Self.edges.map(\.consensus.rawValue))

        try local.store.setThresholds(Self.moved)
        // A reading imported after the change is sent with the store's new tag, once.
        try local.importReadings(
            3, source: DeviceSource(family: "dexcom", serial: "SM87654321", model: "G4Receiver"),
            from: utc("2024-03-12T00:00:00Z"))
        let changed = try await changedTags(local, from: before)
        XCTAssertGreaterThan(changed.readings, Self.edges.count(where: { $0.consensus != $0.moved }))
        XCTAssertLessThan(changed.readings, 1200)
        XCTAssertEqual(changed.logs, Self.edges.count(where: { $0.consensus != $0.moved }))

        let second = try await database.sync(local.store, patient: "p-retag", batchSize: 250)
        XCTAssertEqual(second.retagged["glucose_reading"], changed.readings, second.summary)
        XCTAssertEqual(second.retagged["glucose_log"], changed.logs, second.summary)
        XCTAssertEqual(second.written["glucose_reading"], 3, second.summary)
        XCTAssertTrue(
            second.summary.hasSuffix(
                "; re-tagged \(changed.readings + changed.logs) (glucose_log \(changed.logs), glucose_reading \(changed.readings))"),
            second.summary)
        try await assertTagsMatch(local, database, patient: "p-retag")
        let after = try await serverTags(database, patient: "p-retag")
        XCTAssertEqual(edgeTags(after.readings), Self.edges.map(\.moved.rawValue))
        let patient = try await database.rows(
            "SELECT very_low_mgdl || ' ' || low_mgdl || ' ' || high_mgdl || ' ' || very_high_mgdl FROM patient")
        XCTAssertEqual(patient, [["60 75 170 240"]])

        let third = try await database.sync(local.store, patient: "p-retag", batchSize: 250)
        XCTAssertTrue(third.isEmpty, third.summary)
        XCTAssertEqual(third.batches, 0, third.summary)
        XCTAssertEqual(third.summary, "nothing to send: the server holds this store's data")
        await database.drop()
    }

    /// The sync is killed while a batch of the re-tag waits for a row another session holds:
    /// the batches before it are on the server with their cursor, that one is not, and the next
    /// sync re-tags exactly the rest.
    func testASyncKilledHalfWayThroughAReTagFinishesItNextTime() async throws {
        let database = try await TestDatabase()
        let local = try TestStore()
        try local.importReadings(3000)
        try local.addEdgeLogs(on: "2024-03-20")
        _ = try await database.sync(local.store, patient: "p-retag-kill")
        let before = try await serverTags(database, patient: "p-retag-kill")
        try local.store.setThresholds(Self.moved)

        // egv:1520 is 60 + 1520 % 200 = 180 mg/dL: in range before, above 170 now, so the re-tag
        // must write it. Its row is held until the sync is killed.
        let held = Int64(try local.sqlite3("SELECT id FROM glucose WHERE device_record_key = 'egv:1520';"))!
        let holder = try await database.connect()
        _ = try await holder.query("BEGIN", logger: database.logger).collect()
        _ = try await holder.query(
            "SELECT 1 FROM glucose_reading WHERE patient_id = 'p-retag-kill' AND device_record_key = 'egv:1520' FOR UPDATE",
            logger: database.logger
        ).collect()

        let environment = ProcessInfo.processInfo.environment.merging(["PGPASSWORD": database.server.password]) { $1 }
        let glucobridge = BuiltProducts.executable("glucobridge")
        let process = Process()
        process.executableURL = glucobridge
        process.arguments = ["sync", "--to", database.url, "--patient", "p-retag-kill", "--store", local.path, "--batch-size", "100"]
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Polled with a generous bound: the sync's session ends up waiting for the held row.
        var waiting = false
        let deadline = Date().addingTimeInterval(120)
        while !waiting, Date() < deadline, process.isRunning {
            try await Task.sleep(for: .milliseconds(20))
            let rows = try await database.rows(
                "SELECT count(*)::text FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
            waiting = rows == [["1"]]
        }
        XCTAssertTrue(waiting, "the sync never reached the held row")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        _ = try await holder.query("ROLLBACK", logger: database.logger).collect()
        try await holder.close()

        // Whole batches only: the cursor stands before the held row's batch, every row up to it
        // carries the store's tag, and the held row still has its old one.
        let cursor = try await database.rows(
            "SELECT retag_glucose_id::text, tag_thresholds::text FROM sync_cursor WHERE patient_id = 'p-retag-kill'")
        XCTAssertEqual(cursor.first?[1], "{60,75,170,240,2}")
        let reached = try XCTUnwrap(cursor.first.flatMap { Int64($0[0]) }, "no re-tag under way: \(cursor)")
        XCTAssertLessThan(reached, held)
        XCTAssertGreaterThanOrEqual(reached, held - 100)
        let partial = try await serverTags(database, patient: "p-retag-kill")
        let localNow = try localTags(local)
        let localByKey = Dictionary(uniqueKeysWithValues: localNow.readings.map(Self.split))
        let ids = try Dictionary(
            uniqueKeysWithValues: local.sqlite3("SELECT device_record_key || '|' || id FROM glucose WHERE source_id IS NOT NULL;")
                .split(separator: "\n").map { line in
                    let parts = line.split(separator: "|")
                    return (String(parts[0]), Int64(parts[1])!)
                })
        var stale = 0
        for (key, tag) in partial.readings.map(Self.split) {
            let id = try XCTUnwrap(ids[key.components(separatedBy: "|").last!])
            if id <= reached {
                XCTAssertEqual(tag, localByKey[key], "\(key) is before the cursor")
            } else if tag != localByKey[key] {
                stale += 1
            }
        }
        XCTAssertEqual(partial.readings.first { $0.contains("|egv:1520|") }, "dexcom|SM12345678|egv:1520|in-range")
        XCTAssertGreaterThan(stale, 0)
        XCTAssertEqual(partial.logs, before.logs, "the logs come after every reading")

        let resumed = try runProcess(
            glucobridge, ["sync", "--to", database.url, "--patient", "p-retag-kill", "--store", local.path], environment: environment)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        let logs = Self.edges.count(where: { $0.consensus != $0.moved })
        XCTAssertTrue(
            resumed.stdout.hasSuffix("; re-tagged \(stale + logs) (glucose_log \(logs), glucose_reading \(stale))\n"), resumed.stdout)
        try await assertTagsMatch(local, database, patient: "p-retag-kill")
        let done = try await database.rows("SELECT coalesce(retag_glucose_id::text, 'none') FROM sync_cursor")
        XCTAssertEqual(done, [["none"]])

        let again = try runProcess(
            glucobridge, ["sync", "--to", database.url, "--patient", "p-retag-kill", "--store", local.path], environment: environment)
        XCTAssertEqual(again.stdout, "nothing to send: the server holds this store's data\n")
        await database.drop()
    }

    /// Readings an older glucobridge sent, tagged on a whole mg/dL (69.6 in range, 180.1 in
    /// range), then re-tagged in the store by its migration `v9-tags-from-exact-values` (69.6
    /// hypo, 180.1 hyper): the cursor that glucobridge wrote holds four thresholds and no tag
    /// rule, so the next sync re-tags the rows on the server, and only those that differ.
    func testTagsChangedByTheStoresTagMigrationReachTheServer() async throws {
        let database = try await TestDatabase()
        let local = try TestStore()
        try local.importReadings(400)
        try local.importEdges(from: utc("2024-03-10T00:00:00Z"))
        _ = try await database.sync(local.store, patient: "p-rule")
        try await assertTagsMatch(local, database, patient: "p-rule")

        // The server as the older glucobridge left it: the whole-mg/dL tags of 53.9 (54: hypo
        // level 1) and 180.1 (180: in range), and its cursor without the tag rule.
        let wholeTags = ["edge:0": "hypo-l1", "edge:8": "in-range"]
        for (key, tag) in wholeTags {
            _ = try await database.rows(
                "UPDATE glucose_reading SET tag = '\(tag)' WHERE patient_id = 'p-rule' AND device_record_key = '\(key)'")
        }
        _ = try await database.rows("UPDATE sync_cursor SET tag_thresholds = '{54,70,180,250}' WHERE patient_id = 'p-rule'")
        let before = try await serverTags(database, patient: "p-rule")
        XCTAssertEqual(
            Array(edgeTags(before.readings).prefix(9)),
            [
                "hypo-l1", "hypo-l1", "hypo-l1", "in-range", "in-range", "in-range", "in-range", "in-range", "in-range",
            ])

        let report = try await database.sync(local.store, patient: "p-rule", batchSize: 150)
        XCTAssertEqual(report.retagged["glucose_reading"], 2, report.summary)
        XCTAssertEqual(report.rowsWritten, 0, report.summary)
        try await assertTagsMatch(local, database, patient: "p-rule")
        let after = try await serverTags(database, patient: "p-rule")
        XCTAssertEqual(edgeTags(after.readings), Self.edges.map(\.consensus.rawValue))
        let cursor = try await database.rows("SELECT coalesce(retag_glucose_id::text, 'none'), tag_thresholds::text FROM sync_cursor")
        XCTAssertEqual(cursor, [["none", "{54,70,180,250,2}"]])
        let again = try await database.sync(local.store, patient: "p-rule")
        XCTAssertTrue(again.isEmpty, again.summary)
        await database.drop()
    }

    /// A re-tag stopped part way (the server refused a batch), then the thresholds changed back
    /// before the next sync: that sync starts the re-tag over, since the rows re-tagged so far
    /// carry the tags of thresholds the store no longer has.
    func testAReTagStoppedPartWayStartsOverWhenTheThresholdsChangeAgain() async throws {
        let database = try await TestDatabase()
        let local = try TestStore()
        try local.importReadings(600)
        try local.addEdgeLogs(on: "2024-03-20")
        _ = try await database.sync(local.store, patient: "p-again")
        let consensus = try await serverTags(database, patient: "p-again")
        try local.store.setThresholds(Self.moved)

        // egv:320 is 180 mg/dL, re-tagged under the moved thresholds: the server refuses it.
        for statement in [
            "CREATE FUNCTION refuse_retag() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'egv:320 is held'; END $$",
            """
            CREATE TRIGGER refuse_retag BEFORE UPDATE ON glucose_reading FOR EACH ROW
            WHEN (NEW.device_record_key = 'egv:320') EXECUTE FUNCTION refuse_retag()
            """,
        ] {
            _ = try await database.rows(statement)
        }
        do {
            _ = try await database.sync(local.store, patient: "p-again", batchSize: 100)
            XCTFail("the server took the held row")
        } catch SyncError.server(let message) {
            XCTAssertTrue(message.contains("egv:320 is held"), message)
        }
        let cursor = try await database.rows("SELECT retag_glucose_id::text, tag_thresholds::text FROM sync_cursor")
        XCTAssertEqual(cursor.first?[1], "{60,75,170,240,2}")
        let reached = try XCTUnwrap(cursor.first.flatMap { Int64($0[0]) }, "no re-tag under way: \(cursor)")
        XCTAssertGreaterThan(reached, 0)
        let partial = try await serverTags(database, patient: "p-again")
        let movedEarly = zip(partial.readings, consensus.readings).count { $0 != $1 }
        XCTAssertGreaterThan(movedEarly, 0)

        try local.store.setThresholds(.consensus)
        _ = try await database.rows("DROP TRIGGER refuse_retag ON glucose_reading")
        let report = try await database.sync(local.store, patient: "p-again", batchSize: 100)
        XCTAssertEqual(report.retagged["glucose_reading"], movedEarly, report.summary)
        XCTAssertEqual(report.retagged["glucose_log"] ?? 0, 0, report.summary)
        try await assertTagsMatch(local, database, patient: "p-again")
        let after = try await serverTags(database, patient: "p-again")
        XCTAssertEqual(after, consensus)
        let done = try await database.rows("SELECT coalesce(retag_glucose_id::text, 'none'), tag_thresholds::text FROM sync_cursor")
        XCTAssertEqual(done, [["none", "{54,70,180,250,2}"]])
        await database.drop()
    }

    /// The store's thresholds change while a sync runs and change back before it ends: rows it
    /// read in between carry tags of thresholds the store no longer has, so the sync leaves the
    /// cursor's thresholds unknown and the next one checks every tag. The sync is held at two
    /// known batches by rows other sessions hold.
    func testThresholdsChangedAndChangedBackDuringASyncAreCaughtByTheNext() async throws {
        let database = try await TestDatabase()
        let local = try TestStore()
        try local.importReadings(1000)
        _ = try await database.sync(local.store, patient: "p-aba")
        try local.store.setThresholds(Self.moved)
        let between = try GlucoseThresholds(veryLow: 54, low: 70, high: 160, veryHigh: 250)

        // egv:320 and egv:720 are 180 mg/dL: in range under the consensus, above under both others.
        var holders: [(connection: PostgresConnection, pid: Int)] = []
        for key in ["egv:320", "egv:720"] {
            let connection = try await database.connect()
            let pid = try await connection.query("SELECT pg_backend_pid()", logger: database.logger).collect()[0].decode(Int.self)
            _ = try await connection.query("BEGIN", logger: database.logger).collect()
            _ = try await connection.query(
                "SELECT 1 FROM glucose_reading WHERE device_record_key = \(key) FOR UPDATE", logger: database.logger
            ).collect()
            holders.append((connection, pid))
        }
        let sync = Task { try await database.sync(local.store, patient: "p-aba", batchSize: 100) }
        try await waitUntilBlocked(by: holders[0].pid, database)
        try local.store.setThresholds(between)
        _ = try await holders[0].connection.query("ROLLBACK", logger: database.logger).collect()
        try await waitUntilBlocked(by: holders[1].pid, database)
        try local.store.setThresholds(Self.moved)
        _ = try await holders[1].connection.query("ROLLBACK", logger: database.logger).collect()
        let report = try await sync.value
        for holder in holders { try await holder.connection.close() }
        XCTAssertGreaterThan(report.rowsRetagged, 0, report.summary)

        let stale = try await changedTags(local, from: try await serverTags(database, patient: "p-aba"))
        XCTAssertGreaterThan(stale.readings, 0, "no row was read under the thresholds in between")
        let cursor = try await database.rows("SELECT coalesce(tag_thresholds::text, 'unknown') FROM sync_cursor")
        XCTAssertEqual(cursor, [["unknown"]])
        let next = try await database.sync(local.store, patient: "p-aba", batchSize: 100)
        XCTAssertEqual(next.retagged["glucose_reading"], stale.readings, next.summary)
        try await assertTagsMatch(local, database, patient: "p-aba")
        let third = try await database.sync(local.store, patient: "p-aba")
        XCTAssertTrue(third.isEmpty, third.summary)
        XCTAssertEqual(third.batches, 0)
        await database.drop()
    }

    /// Waits until a session of this database waits for a lock the session `pid` holds.
    /// Polled with a generous bound: a loaded machine only makes the sync slower.
    private func waitUntilBlocked(by pid: Int, _ database: TestDatabase) async throws {
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let rows = try await database.rows(
                "SELECT count(*)::text FROM pg_stat_activity WHERE \(pid) = ANY(pg_blocking_pids(pid))")
            if rows == [["1"]] { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTFail("no session waited for the row held by \(pid)")
        throw CancellationError()
    }

    /// Each store of a patient follows its own thresholds and re-tags only the rows it sent.
    func testTwoStoresOfOnePatientEachReTagTheirOwnRows() async throws {
        let database = try await TestDatabase()
        let home = try TestStore()
        try home.importReadings(400)
        try home.addEdgeLogs(on: "2024-03-05")
        let clinic = try TestStore()
        try clinic.importEdges(from: utc("2024-03-10T00:00:00Z"))
        try clinic.addEdgeLogs(on: "2024-03-11")
        _ = try await database.sync(home.store, patient: "p-stores", batchSize: 100)
        _ = try await database.sync(clinic.store, patient: "p-stores", batchSize: 100)
        let clinicBefore = try await serverTags(database, patient: "p-stores", store: clinic)

        try home.store.setThresholds(Self.moved)
        let homeChanged = try await changedTags(home, from: try await serverTags(database, patient: "p-stores", store: home))
        let homeSync = try await database.sync(home.store, patient: "p-stores", batchSize: 100)
        XCTAssertEqual(homeSync.retagged["glucose_reading"], homeChanged.readings, homeSync.summary)
        XCTAssertEqual(homeSync.retagged["glucose_log"], homeChanged.logs, homeSync.summary)
        try await assertTagsMatch(home, database, patient: "p-stores", alone: false)
        let clinicUntouched = try await serverTags(database, patient: "p-stores", store: clinic)
        XCTAssertEqual(clinicUntouched.readings, clinicBefore.readings)
        XCTAssertEqual(clinicUntouched.logs, clinicBefore.logs)
        let clinicSync = try await database.sync(clinic.store, patient: "p-stores", batchSize: 100)
        XCTAssertTrue(clinicSync.isEmpty, clinicSync.summary)

        try clinic.store.setThresholds(Self.moved)
        let clinicReport = try await database.sync(clinic.store, patient: "p-stores", batchSize: 100)
        let changing = Self.edges.count(where: { $0.consensus != $0.moved })
        XCTAssertEqual(clinicReport.retagged["glucose_reading"], changing, clinicReport.summary)
        XCTAssertEqual(clinicReport.retagged["glucose_log"], changing, clinicReport.summary)
        try await assertTagsMatch(clinic, database, patient: "p-stores", alone: false)
        try await assertTagsMatch(home, database, patient: "p-stores", alone: false)
        let homeAgain = try await database.sync(home.store, patient: "p-stores")
        XCTAssertTrue(homeAgain.isEmpty, homeAgain.summary)
        XCTAssertEqual(homeAgain.batches, 0)
        await database.drop()
    }

    /// A server made by the previous version (central schema 2, whose cursors know no tag
    /// thresholds) is upgraded by the next sync, which checks every tag once: rows sent without
    /// a tag (before schema 2) or with one the store has changed since get the store's.
    func testASchemaTwoServerIsUpgradedAndItsTagsCheckedOnce() async throws {
        let database = try await TestDatabase()
        let local = try TestStore()
        try local.importReadings(300)
        try local.importEdges(from: utc("2024-03-10T00:00:00Z"))
        try local.addEdgeLogs(on: "2024-03-11")
        _ = try await database.sync(local.store, patient: "p-old", batchSize: 100)
        // The server as the previous version leaves it, with tags an older one did not send or
        // that went stale when the store's thresholds changed.
        for statement in [
            "ALTER TABLE sync_cursor DROP COLUMN tag_thresholds, DROP COLUMN retag_glucose_id",
            "ALTER TABLE activity_minute DROP COLUMN device_activity_kind, DROP COLUMN device_intensity",
            "ALTER TABLE activity_session DROP COLUMN distance_m, DROP COLUMN energy_kj",
            "ALTER TABLE exercise_log DROP COLUMN distance_m, DROP COLUMN energy_kj",
            "DELETE FROM sync_schema_version WHERE version IN (3, 4, 5, 6)",
            "UPDATE glucose_reading SET tag = NULL WHERE device_record_key LIKE 'egv:1%'",
            "UPDATE glucose_reading SET tag = 'hyper-l2' WHERE device_record_key LIKE 'edge:%'",
            "UPDATE glucose_log SET tag = 'in-range'",
        ] {
            _ = try await database.rows(statement)
        }
        let nulls = Int(try await database.rows("SELECT count(*)::text FROM glucose_reading WHERE tag IS NULL")[0][0])!
        XCTAssertEqual(nulls, 111)
        let localLogsOutOfRange = Int(try local.sqlite3("SELECT count(*) FROM glucose WHERE source_id IS NULL AND tag <> 'in-range';"))!
        let localEdgesNotHyper2 = Int(
            try local.sqlite3(
                "SELECT count(*) FROM glucose WHERE device_record_key LIKE 'edge:%' AND tag <> 'hyper-l2';"))!

        let report = try await database.sync(local.store, patient: "p-old", batchSize: 100)
        let versions = try await database.rows("SELECT string_agg(version::text, ',' ORDER BY version) FROM sync_schema_version")
        XCTAssertEqual(versions, [["1,2,3,4,5,6"]])
        XCTAssertEqual(report.retagged["glucose_reading"], nulls + localEdgesNotHyper2, report.summary)
        XCTAssertEqual(report.retagged["glucose_log"], localLogsOutOfRange, report.summary)
        XCTAssertEqual(report.rowsWritten, 0, report.summary)
        try await assertTagsMatch(local, database, patient: "p-old")
        let again = try await database.sync(local.store, patient: "p-old")
        XCTAssertTrue(again.isEmpty, again.summary)
        XCTAssertEqual(again.batches, 0)
        await database.drop()
    }

    // MARK: - Helpers

    /// Device readings as `family|serial|key|tag` and logs as `uid|tag`, sorted.
    struct Tags: Equatable {
        var readings: [String]
        var logs: [String]
    }

    private func localTags(_ local: TestStore) throws -> Tags {
        let readings = try local.sqlite3(
            """
            SELECT s.family || '|' || s.serial || '|' || g.device_record_key || '|' || g.tag
            FROM glucose g JOIN source s ON s.id = g.source_id;
            """)
        let logs = try local.sqlite3("SELECT uid || '|' || tag FROM glucose WHERE source_id IS NULL;")
        return Tags(readings: Self.lines(readings), logs: Self.lines(logs))
    }

    /// The server's tags of `patient`, or only of the rows `store` holds.
    private func serverTags(_ database: TestDatabase, patient: String, store: TestStore? = nil) async throws -> Tags {
        let readings = try await database.rows(
            """
            SELECT s.family || '|' || s.serial || '|' || g.device_record_key || '|' || coalesce(g.tag, 'NULL')
            FROM glucose_reading g JOIN source s ON s.id = g.source_id WHERE g.patient_id = '\(patient)'
            """
        ).map { $0[0] }
        let logs = try await database.rows(
            "SELECT uid || '|' || coalesce(tag, 'NULL') FROM glucose_log WHERE patient_id = '\(patient)'"
        ).map { $0[0] }
        guard let store else { return Tags(readings: readings.sorted(), logs: logs.sorted()) }
        let mine = try localTags(store)
        let readingKeys = Set(mine.readings.map { Self.split($0).key })
        let logKeys = Set(mine.logs.map { Self.split($0).key })
        return Tags(
            readings: readings.filter { readingKeys.contains(Self.split($0).key) }.sorted(),
            logs: logs.filter { logKeys.contains(Self.split($0).key) }.sorted())
    }

    /// How many of the server's rows (as `before`) carry a tag other than the store's now.
    private func changedTags(_ local: TestStore, from before: Tags) async throws -> (readings: Int, logs: Int) {
        let now = try localTags(local)
        func count(_ old: [String], _ new: [String]) -> Int {
            let current = Dictionary(uniqueKeysWithValues: new.map(Self.split))
            return old.map(Self.split).count { key, tag in current[key].map { $0 != tag } ?? false }
        }
        return (count(before.readings, now.readings), count(before.logs, now.logs))
    }

    /// Every glucose reading and log of `local` is on the server with the store's tag (and, when
    /// the store is the patient's only one, nothing else is).
    private func assertTagsMatch(
        _ local: TestStore, _ database: TestDatabase, patient: String, alone: Bool = true,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let expected = try localTags(local)
        let actual = try await serverTags(database, patient: patient, store: alone ? nil : local)
        XCTAssertEqual(actual.readings.count, expected.readings.count, file: file, line: line)
        XCTAssertEqual(actual.readings, expected.readings, file: file, line: line)
        XCTAssertEqual(actual.logs, expected.logs, file: file, line: line)
    }

    /// The tags of the `edge:` readings, in the order of ``edges``.
    private func edgeTags(_ readings: [String]) -> [String] {
        Self.edges.indices.map { index in
            readings.first { $0.contains("|edge:\(index)|") }.map { Self.split($0).tag } ?? "missing"
        }
    }

    private static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).sorted()
    }

    /// `…|tag` as the part before the last `|` and the tag.
    private static func split(_ line: String) -> (key: String, tag: String) {
        let cut = line.lastIndex(of: "|")!
        return (String(line[..<cut]), String(line[line.index(after: cut)...]))
    }
}

extension TestStore {
    /// One meter reading of each of ``SyncRetagTests/edges`` (in its unit), an hour apart from
    /// `start`, keyed `edge:INDEX`.
    func importEdges(from start: Date) throws {
        let readings = SyncRetagTests.edges.enumerated().map { index, edge in
            GlucoseReading(
                time: start.addingTimeInterval(Double(index) * 3600), mgdl: edge.unit.milligramsPerDeciliter(edge.value),
                unit: edge.unit, kind: .fingerstick, recordKey: "edge:\(index)", deviceTime: 500_000_000 + Int64(index) * 3600)
        }
        let end = start.addingTimeInterval(Double(readings.count) * 3600)
        _ = try store.save(
            ImportBatch(
                source: Self.meter, startedAt: end, mode: .live, origin: "sync tests",
                clock: ClockReport(hostTime: end, deviceTime: nil, method: .hostAnchored),
                glucose: readings, recordsRead: readings.count))
    }

    /// One glucose log of each of ``SyncRetagTests/edges``, entered in the app on `day`.
    func addEdgeLogs(on day: String) throws {
        let start = utc("\(day)T06:00:00Z")
        for (index, edge) in SyncRetagTests.edges.enumerated() {
            _ = try store.add(GlucoseLog(time: start.addingTimeInterval(Double(index) * 600), value: edge.value, unit: edge.unit))
        }
    }
}

extension TestDatabase {
    /// A connection of its own to this database.
    func connect() async throws -> PostgresConnection {
        let target = self.target
        return try await PostgresConnection.connect(
            configuration: .init(
                host: target.host, port: target.port, username: target.user, password: server.password,
                database: target.database, tls: .disable),
            id: 3, logger: logger)
    }
}
