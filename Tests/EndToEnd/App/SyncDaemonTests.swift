import Foundation
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `glucobridge daemon --sync-to`: a sync after every import, with back-off while the server
/// cannot be reached, and its state in `status`.
final class SyncDaemonTests: XCTestCase {
    let patience: TimeInterval = 60

    func testTheDaemonSyncsAfterAnImportAndKeepsImportingWhileTheServerIsUnreachable() async throws {
        let database = try await TestDatabase()
        let folder = try Fixtures.temporaryDirectory()
        let spool = folder.appendingPathComponent("spool")
        let store = folder.appendingPathComponent("store.sqlite").path
        try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
        let passwordFile = folder.appendingPathComponent("password")
        try Data((database.server.password + "\n").utf8).write(to: passwordFile)
        let glucobridge = BuiltProducts.executable("glucobridge")

        // Nothing listens on port 1: the import goes on, the sync fails and backs off.
        let offline = try start(
            [
                "--spool", spool.path, "--no-usb-hotplug", "--store", store, "--tz", "America/New_York",
                "--sync-to", "postgresql://glucobridge@127.0.0.1:1/nowhere", "--patient", "p-daemon",
            ], log: folder.appendingPathComponent("offline.log"))
        try FileManager.default.copyItem(at: Fixtures.url("dexcom/ecc1-g4-receiver.pcap"), to: spool.appendingPathComponent("first.pcap"))
        try await waitFor("the import") { FileManager.default.fileExists(atPath: spool.appendingPathComponent("done/first.pcap").path) }
        try await waitFor("the failed sync in status") {
            (try? runProcess(glucobridge, ["status", "--store", store]).stdout.contains("last sync failed")) ?? false
        }
        let status = try runProcess(glucobridge, ["status", "--store", store]).stdout
        XCTAssertTrue(status.contains("  sync to 127.0.0.1:1/nowhere as p-daemon: not synced yet"), status)
        XCTAssertTrue(status.contains("cannot reach the PostgreSQL server 127.0.0.1:1/nowhere"), status)
        XCTAssertTrue(status.contains("; next try "), status)
        try stop(offline)

        // With the server there, the store reaches it; a later import follows.
        let online = try start(
            [
                "--spool", spool.path, "--no-usb-hotplug", "--store", store,
                "--sync-to", database.url, "--patient", "p-daemon", "--password-file", passwordFile.path,
            ], log: folder.appendingPathComponent("online.log"))
        try await waitFor("the readings on the server") { ((try? await database.count("glucose_reading", patient: "p-daemon")) ?? 0) == 23 }
        _ = try TestSupport.sqlite3(store, "INSERT INTO insulin (day_id, time, units) SELECT id, '2015-07-17 12:00:00.000', 3 FROM day LIMIT 1;")
        try await waitFor("the new insulin log on the server") { ((try? await database.count("insulin_log", patient: "p-daemon")) ?? 0) == 1 }
        try await waitFor("the sync in status") {
            (try? runProcess(glucobridge, ["status", "--store", store]).stdout.contains("last synced")) ?? false
        }
        let synced = try runProcess(glucobridge, ["status", "--store", store]).stdout
        XCTAssertFalse(synced.contains("last sync failed"), synced)

        // New thresholds (set by the app) re-tag the store's rows, and the server's follow.
        let tags = "SELECT device_record_key || '|' || tag FROM glucose WHERE source_id IS NOT NULL;"
        let before = try TestSupport.sqlite3(store, tags)
        try SharedStore(path: store).setThresholds(try GlucoseThresholds(veryLow: 60, low: 90, high: 140, veryHigh: 200))
        let after = try TestSupport.sqlite3(store, tags)
        XCTAssertNotEqual(after, before)
        let expected = after.split(separator: "\n").map(String.init).sorted()
        try await waitFor("the new tags on the server") {
            let rows = try? await database.rows(
                "SELECT device_record_key || '|' || tag FROM glucose_reading WHERE patient_id = 'p-daemon'")
            return rows?.map { $0[0] }.sorted() == expected
        }
        try stop(online)
        await database.drop()
    }

    private func start(_ arguments: [String], log: URL) throws -> Process {
        try launchDaemon(arguments, loggingTo: log)
    }

    private func stop(_ daemon: Process) throws {
        if !signalAndWait(daemon, SIGTERM, patience: patience) {
            kill(daemon.processIdentifier, SIGKILL)
            XCTFail("the daemon did not stop within \(patience) s")
        }
    }

    private func waitFor(_ what: String, _ condition: () async -> Bool) async throws {
        let deadline = Date().addingTimeInterval(patience)
        while !(await condition()) {
            guard Date() < deadline else {
                XCTFail("\(what): not within \(patience) s")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
