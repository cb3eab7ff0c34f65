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

/// The PostgreSQL server the sync tests use: the one `.ci/start-postgres` started (it writes
/// `/tmp/glucobridge-test-postgres/connection.env`), or the one the same variables name in the
/// environment. Without one, the tests fail and say how to start it.
struct TestServer {
    static let connectionFile =
        (ProcessInfo.processInfo.environment["GLUCOBRIDGE_TEST_POSTGRES_DIR"]
            ?? "/tmp/glucobridge-test-postgres") + "/connection.env"
    static let howToStart = """
        the sync tests need a PostgreSQL server: run `.ci/start-postgres` (it starts a throwaway \
        one and writes \(connectionFile)), or export GLUCOBRIDGE_TEST_POSTGRES_URL, \
        GLUCOBRIDGE_TEST_POSTGRES_PASSWORD and GLUCOBRIDGE_TEST_POSTGRES_CA
        """

    /// `postgresql://USER@HOST:PORT/DB` of an existing database (the admin one).
    var url: String
    var password: String
    /// The CA certificate of the server's TLS certificate.
    var certificateAuthority: String

    /// Reads the settings; throws the how-to message when there are none.
    static func settings() throws -> TestServer {
        var values = ProcessInfo.processInfo.environment
        if values["GLUCOBRIDGE_TEST_POSTGRES_URL"] == nil,
            let text = try? String(contentsOfFile: connectionFile, encoding: .utf8)
        {
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { values[parts[0]] = parts[1] }
            }
        }
        guard let url = values["GLUCOBRIDGE_TEST_POSTGRES_URL"], let password = values["GLUCOBRIDGE_TEST_POSTGRES_PASSWORD"]
        else { throw TestServerMissing(message: howToStart) }
        return TestServer(url: url, password: password, certificateAuthority: values["GLUCOBRIDGE_TEST_POSTGRES_CA"] ?? "")
    }

    /// The same server's URL for `database`.
    func url(database: String, query: String = "") -> String {
        var components = URLComponents(string: url)!
        components.path = "/" + database
        return components.string! + query
    }
}

struct TestServerMissing: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A database of its own on the test server, dropped at the end of the test.
final class TestDatabase: @unchecked Sendable {
    let server: TestServer
    let name: String
    var url: String { server.url(database: name) }
    var target: SyncTarget { try! SyncTarget(url: url) }
    let logger = Logger(label: "glucobridge.sync-tests")

    init() async throws {
        let server: TestServer
        do {
            server = try TestServer.settings()
        } catch {
            XCTFail("\(error)")
            throw error
        }
        self.server = server
        name = "glucobridge_test_\(UUID().uuidString.prefix(8).lowercased())"
        do {
            try await Self.admin(server) { connection, logger in
                _ = try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(self.name)"), logger: logger).collect()
            }
        } catch {
            let message = "cannot reach the test PostgreSQL server at \(server.url) (\(error)); \(TestServer.howToStart)"
            XCTFail(message)
            throw TestServerMissing(message: message)
        }
    }

    func drop() async {
        try? await Self.admin(server) { connection, logger in
            _ = try await connection.query(
                PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(self.name) WITH (FORCE)"), logger: logger
            ).collect()
        }
    }

    private static func admin(_ server: TestServer, _ body: (PostgresConnection, Logger) async throws -> Void) async throws {
        let target = try SyncTarget(url: server.url)
        let logger = Logger(label: "glucobridge.sync-tests")
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: target.host, port: target.port, username: target.user, password: server.password,
                database: target.database, tls: .disable),
            id: 1, logger: logger)
        defer { Task { try? await connection.close() } }
        try await body(connection, logger)
    }

    /// Runs `sql` on this database; each row as text values (NULL as "NULL").
    func rows(_ sql: String) async throws -> [[String]] {
        let target = self.target
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: target.host, port: target.port, username: target.user, password: server.password,
                database: target.database, tls: .disable),
            id: 2, logger: logger)
        do {
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
            try await connection.close()
            return try rows.map { row in
                try row.map { cell in try cell.decode(String?.self) ?? "NULL" }
            }
        } catch {
            try? await connection.close()
            throw error
        }
    }

    func count(_ table: String, patient: String) async throws -> Int {
        Int(try await rows("SELECT count(*)::text FROM \(table) WHERE patient_id = '\(patient)'")[0][0])!
    }

    /// Syncs `store` as `patient` in this process.
    func sync(_ store: SharedStore, patient: String, batchSize: Int = 5000, query: String = "") async throws -> SyncReport {
        let target = try SyncTarget(url: url + query)
        return try await StoreSync(
            store: store, target: target, password: server.password, patient: patient, batchSize: batchSize
        ).run()
    }
}

/// A store in a fresh folder, with device readings and app logs to sync.
struct TestStore {
    let folder: URL
    let store: SharedStore
    var path: String { store.path }

    static let dexcom = DeviceSource(family: "dexcom", serial: "SM12345678", model: "G4Receiver")
    static let meter = DeviceSource(family: "contour", serial: "7219123", model: "Contour Next")

    init() throws {
        folder = try Fixtures.temporaryDirectory()
        store = try SharedStore(
            path: folder.appendingPathComponent("store.sqlite").path, timeZone: TimeZone(identifier: "Europe/Berlin")!)
    }

    /// Imports `count` readings five minutes apart from `start` under `source`, in imports of
    /// at most 2000.
    func importReadings(_ count: Int, source: DeviceSource = dexcom, from start: Date = utc("2024-03-01T00:00:00Z")) throws {
        for first in stride(from: 0, to: count, by: 2000) {
            let readings = (first..<min(first + 2000, count)).map { index in
                GlucoseReading(
                    time: start.addingTimeInterval(Double(index) * 300), mgdl: Double(60 + index % 200),
                    kind: .sensor, trend: .flat, noise: 1, recordKey: "egv:\(index)",
                    deviceTime: 400_000_000 + Int64(index) * 300)
            }
            _ = try store.save(
                ImportBatch(
                    source: source, startedAt: start.addingTimeInterval(Double(count) * 300 + 60), mode: .live,
                    origin: "sync tests",
                    clock: ClockReport(hostTime: start.addingTimeInterval(Double(count) * 300 + 60), deviceTime: nil, method: .hostAnchored),
                    glucose: readings, recordsRead: readings.count))
        }
    }

    static let band = DeviceSource(family: "ble-heart-rate", serial: "C0:11:22:33:44:55", model: "HRM-Pro")

    /// An hour of a heart-rate band from `start`, one minute a row, with one walking session.
    func importActivity(from start: Date = utc("2024-03-01T17:00:00Z")) throws {
        let minutes = (0..<60).map { minute in
            ActivityMinute(
                start: start.addingTimeInterval(Double(minute) * 60), heartRate: Double(90 + minute % 40),
                sensors: [.heartRateBand], sampleCount: 60)
        }
        let session = ExerciseSession(
            start: start.addingTimeInterval(600), minutes: 40, kind: .walking, intensity: .moderate,
            minutesByIntensity: [.moderate: 40])
        _ = try store.save(
            ActivityBatch(
                source: Self.band, startedAt: start.addingTimeInterval(3700), mode: .live, origin: "sync tests",
                clock: ClockReport(hostTime: start.addingTimeInterval(3700), deviceTime: nil, method: .hostAnchored),
                minutes: minutes, sessions: [session], samplesRead: 3600))
    }

    /// One log of every kind the app enters, and a favourite Day.
    func addLogs(on day: String = "2024-03-02") throws {
        let noon = utc("\(day)T11:00:00Z")
        _ = try store.add(MealLog(time: noon, name: "Pasta", carbs: 80, protein: 20, fat: 10, isFavourite: true))
        _ = try store.add(InsulinLog(time: noon, units: 6.5))
        _ = try store.add(ExerciseLog(time: noon.addingTimeInterval(3600), name: "Walking", duration: 1800, intensity: .moderate))
        _ = try store.add(GlucoseLog(time: noon.addingTimeInterval(-600), value: 131))
        try store.startEpisode(.illness, at: noon.addingTimeInterval(-86_400))
        try store.stopEpisode(.illness, at: noon)
        try store.startEpisode(.stress, at: noon)
        try store.setFavourite(day: DayDate(day)!, true)
    }

    /// Runs SQL through the `sqlite3` program.
    func sqlite3(_ sql: String) throws -> String {
        try TestSupport.sqlite3(path, sql)
    }
}
