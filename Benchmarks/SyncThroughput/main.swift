// Sync throughput: many patients' stores synced at once into one PostgreSQL server.
//
//   .ci/start-postgres
//   swift run -c release glucobridge-sync-bench [patients] [days] [rounds] [batch]
//   (default 200 × 90, 3 rounds, the sync's own batch size)
//   swift run -c release glucobridge-sync-bench 1 365   one patient alone, a year
//
// Generates one store of `days` days (a CGM reading every five minutes, three meals and two
// insulin doses a day). Each round copies it for every patient, syncs all patients concurrently
// into a fresh database (one connection each), then syncs them all again (nothing to send); the
// baseline of the round is a plain `COPY … FROM STDIN` of the same readings by one connection
// into an unpartitioned table with the same columns and primary key, in the same database. The
// rounds alternate which of the two goes first, so that a drift of the machine's speed weighs on
// both alike, and the ratios printed last are the medians of the rounds' ratios. Each phase is
// timed until what it wrote is settled (its connections ended, its tables analyzed, a checkpoint;
// autovacuum is off for the round's tables), so that no phase pays for another's background work.
// With one patient, a second baseline is the server's own load of the same rows into the same
// schema: `pg_dump` of the round's central database after the first sync, loaded by `psql` into an
// empty database (tables, COPY of the data, then keys, indexes and constraints).
// Server CPU is the user + system time of this server's processes (its postmaster and children,
// not another PostgreSQL's on the machine), read from /proc (Linux, as root or as the server's
// user).
import Foundation
import GRDB
import Logging
import Model
import Pipeline
import PostgresNIO
import Store
import Sync

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let patients = arguments.first ?? 200
let days = arguments.dropFirst().first ?? 90
let rounds = max(1, arguments.dropFirst(2).first ?? 3)
/// Rows per batch (one server transaction each), when not the sync's default.
let batchSize = arguments.dropFirst(3).first
let logger = Logger(label: "glucobridge.sync-bench")

/// The server of `.ci/start-postgres` (or the same variables in the environment).
func serverSettings() -> [String: String] {
    var values = ProcessInfo.processInfo.environment
    let file = (values["GLUCOBRIDGE_TEST_POSTGRES_DIR"] ?? "/tmp/glucobridge-test-postgres") + "/connection.env"
    if values["GLUCOBRIDGE_TEST_POSTGRES_URL"] == nil, let text = try? String(contentsOfFile: file, encoding: .utf8) {
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
    }
    guard values["GLUCOBRIDGE_TEST_POSTGRES_URL"] != nil else {
        FileHandle.standardError.write(Data("no server: run .ci/start-postgres first\n".utf8))
        exit(1)
    }
    return values
}

/// User + system CPU seconds of the server `postmaster` (its own and those of its children that
/// ended) and of its live children, or nil where /proc does not show them (Linux, as root or as
/// the server's user). Only this server's processes count: another PostgreSQL on the machine (a
/// CI run's) is not this benchmark's.
func serverCPUSeconds(postmaster: Int32) -> Double? {
    guard let pids = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    var total = 0.0
    var seen = false
    for pid in pids {
        // proc(5): field 4 is the parent, 14 to 17 utime, stime, cutime and cstime (children that
        // ended and were waited for: the postmaster's count the backends of connections now closed).
        guard let number = Int32(pid), let fields = statFields(number),
            fields.count > 15, number == postmaster || Int32(fields[1]) == postmaster
        else { continue }
        total += fields[11...14].compactMap { Double($0) }.reduce(0, +) / ticks
        seen = true
    }
    return seen ? total : nil
}

/// The server's postmaster: the parent of `connection`'s backend, when the server runs here.
func postmasterPID(_ connection: PostgresConnection) async throws -> Int32? {
    let backend = try await connection.query("SELECT pg_backend_pid()", logger: logger).collect().first?.decode(Int32.self)
    return backend.flatMap(statFields)?.dropFirst().first.flatMap { Int32($0) }
}

/// The fields of `/proc/PID/stat` after the process's name (from field 3, the state), or nil
/// where /proc does not show the process.
func statFields(_ pid: Int32) -> [Substring]? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return nil }
    return stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
}

func connect(_ target: SyncTarget, _ password: String?) async throws -> PostgresConnection {
    try await PostgresConnection.connect(
        configuration: .init(
            host: target.host, port: target.port, username: target.user, password: password, database: target.database,
            tls: .disable),
        id: 1, logger: logger)
}

/// A round's database, and a connection to it that settles each phase.
struct RoundDatabase {
    var name: String
    var connection: PostgresConnection
    var connectionPID: Int32
}

/// Times `body` and the server CPU it costs until what it wrote is settled: its connections have
/// ended, `tables` are analyzed and a checkpoint has written its pages. The server's background
/// work for those rows (autovacuum's analyze, the writes of dirty pages) would otherwise fall into
/// whichever phase runs next; each phase pays for its own instead, the sync and the baseline alike.
/// A checkpoint before it leaves no earlier pages to write.
func measure(
    _ database: RoundDatabase, analyzing tables: [String], _ body: () async throws -> Void
) async throws -> (seconds: Double, cpu: Double?) {
    _ = try await database.connection.query("CHECKPOINT", logger: logger).collect()
    let cpuBefore = postmaster.flatMap(serverCPUSeconds)
    let start = ContinuousClock.now
    try await body()
    while try await adminConnection.query(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = \(database.name) AND pid <> \(database.connectionPID)",
        logger: logger
    ).collect().first?.decode(Int.self) ?? 0 > 0 {
        try await Task.sleep(for: .milliseconds(10))
    }
    if !tables.isEmpty {
        _ = try await database.connection.query(
            PostgresQuery(unsafeSQL: "ANALYZE \(tables.joined(separator: ", "))"), logger: logger
        ).collect()
    }
    _ = try await database.connection.query("CHECKPOINT", logger: logger).collect()
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let cpu = postmaster.flatMap(serverCPUSeconds).flatMap { after in cpuBefore.map { after - $0 } }
    return (seconds, cpu)
}

let settings = serverSettings()
let password = settings["GLUCOBRIDGE_TEST_POSTGRES_PASSWORD"]
let admin = try SyncTarget(url: settings["GLUCOBRIDGE_TEST_POSTGRES_URL"]!)
let adminConnection = try await connect(admin, password)
let postmaster = try await postmasterPID(adminConnection)

// One generated store, copied for every patient in every round.
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glucobridge-sync-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let template = folder.appendingPathComponent("template.sqlite").path
do {
    let store = try SharedStore(path: template, timeZone: TimeZone(identifier: "Europe/Berlin")!)
    let start = Date(timeIntervalSince1970: 1_704_067_200)  // 2024-01-01T00:00:00Z
    let perDay = 288
    let source = DeviceSource(family: "dexcom", serial: "SM00000001", model: "G4Receiver")
    for day in 0..<days {
        let readings = (0..<perDay).map { minute in
            let index = day * perDay + minute
            return GlucoseReading(
                time: start.addingTimeInterval(Double(index) * 300), mgdl: Double(70 + (index * 7) % 180), kind: .sensor,
                trend: .flat, noise: 1, recordKey: "egv:\(index)", deviceTime: 400_000_000 + Int64(index) * 300)
        }
        let end = start.addingTimeInterval(Double((day + 1) * perDay) * 300)
        _ = try store.save(
            ImportBatch(
                source: source, startedAt: end, mode: .live, origin: nil,
                clock: ClockReport(hostTime: end, deviceTime: nil, method: .hostAnchored), glucose: readings, recordsRead: perDay))
        let dayStart = start.addingTimeInterval(Double(day) * 86_400)
        for (hour, carbs) in [(7.0, 45.0), (12.0, 70.0), (19.0, 60.0)] {
            _ = try store.add(MealLog(time: dayStart.addingTimeInterval(hour * 3600), name: "Meal", carbs: carbs))
        }
        for hour in [7.0, 19.0] {
            _ = try store.add(InsulinLog(time: dayStart.addingTimeInterval(hour * 3600), units: 5))
        }
    }
    // Everything into the main file, which is what is copied.
    _ = try store.database.writeWithoutTransaction { try $0.checkpoint(.truncate) }
    try store.database.close()
}

func syncAll(_ stores: [SharedStore], into target: SyncTarget, password: String?) async throws -> [SyncReport] {
    try await withThrowingTaskGroup(of: SyncReport.self) { group in
        for (index, store) in stores.enumerated() {
            group.addTask {
                var sync = try StoreSync(store: store, target: target, password: password, patient: "patient-\(index)")
                if let batchSize { sync.batchSize = max(1, batchSize) }
                return try await sync.run()
            }
        }
        return try await group.reduce(into: []) { $0.append($1) }
    }
}

// The baseline's lines: the template's readings in the sync's columns, as COPY's text format.
let readingsPerPatient = days * 288
let templateRows = try SharedStore(path: template).syncRows(.glucoseReadings, after: 0, limit: readingsPerPatient)
func text(_ value: SyncValue) -> String {
    switch value {
    case .null: return "\\N"
    case .integer(let number): return String(number)
    case .real(let number): return "\(number)"
    case .text(let string): return string
    }
}
let columns = ["device_record_key", "day", "time", "mgdl", "unit", "kind", "trend", "noise", "device_time"]
let indexes = columns.map { templateRows.columns.firstIndex(of: $0)! }
let lines = templateRows.rows.map { row in indexes.map { text(row[$0]) }.joined(separator: "\t") }

/// The same readings COPY'd by one connection into a table of their own.
func copyBaseline(into target: SyncTarget, _ database: RoundDatabase) async throws -> (seconds: Double, cpu: Double?) {
    let connection = try await connect(target, password)
    _ = try await connection.query(
        """
        CREATE TABLE baseline_reading (
            patient_id text NOT NULL, source_id bigint NOT NULL, device_record_key text NOT NULL, day date NOT NULL,
            time timestamptz NOT NULL, mgdl double precision NOT NULL, unit text NOT NULL, kind text NOT NULL,
            trend text, noise integer, device_time bigint,
            PRIMARY KEY (patient_id, source_id, device_record_key)) WITH (autovacuum_enabled = off)
        """, logger: logger
    ).collect()
    return try await measure(database, analyzing: ["baseline_reading"]) {
        for patient in 0..<patients {
            try await connection.copyFrom(
                table: "baseline_reading", columns: ["patient_id", "source_id"] + columns, logger: logger
            ) { writer in
                var buffer = ByteBuffer()
                for line in lines {
                    buffer.writeString("patient-\(patient)\t1\t\(line)\n")
                    if buffer.readableBytes > 1 << 20 {
                        try await writer.write(buffer)
                        buffer.clear()
                    }
                }
                try await writer.write(buffer)
            }
        }
        try await connection.closeGracefully()
    }
}

/// Runs a PostgreSQL client program with the test server's password, failing on a non-zero exit.
func client(_ program: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [program] + arguments
    var environment = ProcessInfo.processInfo.environment
    if let password { environment["PGPASSWORD"] = password }
    process.environment = environment
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw NSError(domain: "glucobridge-sync-bench", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(program) failed"])
    }
}

/// The server's own load of what the first sync wrote: `databaseName` as pg_dump writes it (its
/// schema, then its data with COPY, then its keys, indexes and constraints), loaded by psql into an
/// empty database, timed and settled as the sync is.
func restoreBaseline(of databaseName: String, url: (String) -> String) async throws -> (seconds: Double, cpu: Double?) {
    let dump = folder.appendingPathComponent("\(databaseName).sql").path
    try client("pg_dump", ["--no-owner", "--file", dump, url(databaseName)])
    let restoreName = databaseName + "_restore"
    _ = try await adminConnection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(restoreName)"), logger: logger).collect()
    let target = try SyncTarget(url: url(restoreName) + "?sslmode=disable")
    let settler = try await connect(target, password)
    let settlerPID = try await settler.query("SELECT pg_backend_pid()", logger: logger).collect().first!.decode(Int32.self)
    let database = RoundDatabase(name: restoreName, connection: settler, connectionPID: settlerPID)
    var tables: [String] = []
    let measured = try await measure(database, analyzing: []) {
        try client("psql", ["-X", "-q", "-o", "/dev/null", "-v", "ON_ERROR_STOP=1", "-d", url(restoreName), "-f", dump])
        tables = try await settler.query(
            "SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace", logger: logger
        ).collect().map { try $0.decode(String.self) }
        _ = try await settler.query(
            PostgresQuery(unsafeSQL: "ANALYZE \(tables.joined(separator: ", "))"), logger: logger
        ).collect()
    }
    try await settler.closeGracefully()
    _ = try await adminConnection.query(
        PostgresQuery(unsafeSQL: "DROP DATABASE \(restoreName) WITH (FORCE)"), logger: logger
    ).collect()
    try? FileManager.default.removeItem(atPath: dump)
    return measured
}

/// One round, in a database of its own: the first sync of every patient, the second, and the baseline.
struct Round {
    var first: (seconds: Double, cpu: Double?)
    var second: (seconds: Double, cpu: Double?)
    var baseline: (seconds: Double, cpu: Double?)
    /// psql loading pg_dump's data of the round's database (one patient only).
    var restore: (seconds: Double, cpu: Double?)?
    var readings = 0, rows = 0, resent = 0
}

func runRound(_ round: Int) async throws -> Round {
    let databaseName = "glucobridge_bench_\(UUID().uuidString.prefix(8).lowercased())"
    _ = try await adminConnection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(databaseName)"), logger: logger).collect()
    var components = URLComponents(string: settings["GLUCOBRIDGE_TEST_POSTGRES_URL"]!)!
    components.path = "/" + databaseName
    // Plain connections, as the baseline's.
    let target = try SyncTarget(url: components.string! + "?sslmode=disable")
    let roundFolder = folder.appendingPathComponent("round-\(round)")
    try FileManager.default.createDirectory(at: roundFolder, withIntermediateDirectories: true)
    let stores = try (0..<patients).map { patient in
        let path = roundFolder.appendingPathComponent("p\(patient).sqlite").path
        try FileManager.default.copyItem(atPath: template, toPath: path)
        return try SharedStore(path: path)
    }
    // The central schema is created before timing, by one empty patient.
    _ = try await StoreSync(
        store: try SharedStore(path: roundFolder.appendingPathComponent("empty.sqlite").path), target: target,
        password: password, patient: "warm-up"
    ).run()
    let settler = try await connect(target, password)
    let settlerPID = try await settler.query("SELECT pg_backend_pid()", logger: logger).collect().first!.decode(Int32.self)
    let database = RoundDatabase(name: databaseName, connection: settler, connectionPID: settlerPID)
    // Autovacuum is off for every table of the round (the baseline's too, made so), so that its
    // work cannot fall into the other phase: each phase analyzes what it wrote (``measure``).
    _ = try await settler.query(
        """
        DO $$ DECLARE t regclass; BEGIN
            FOR t IN SELECT oid FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace LOOP
                EXECUTE format('ALTER TABLE %s SET (autovacuum_enabled = off)', t);
            END LOOP;
        END $$
        """, logger: logger
    ).collect()
    // The tables autovacuum would analyze: the plain ones and the partitions, not their parents.
    let centralTables = try await settler.query(
        "SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace", logger: logger
    ).collect().map { try $0.decode(String.self) }

    var firstReports: [SyncReport] = []
    var secondReports: [SyncReport] = []
    let sync = { () async throws -> (first: (seconds: Double, cpu: Double?), second: (seconds: Double, cpu: Double?)) in
        let first = try await measure(database, analyzing: centralTables) {
            firstReports = try await syncAll(stores, into: target, password: password)
        }
        let second = try await measure(database, analyzing: []) {
            secondReports = try await syncAll(stores, into: target, password: password)
        }
        return (first, second)
    }
    let measured: Round
    if round % 2 == 0 {
        let synced = try await sync()
        measured = Round(first: synced.first, second: synced.second, baseline: try await copyBaseline(into: target, database))
    } else {
        let baseline = try await copyBaseline(into: target, database)
        let synced = try await sync()
        measured = Round(first: synced.first, second: synced.second, baseline: baseline)
    }
    for store in stores { try store.database.close() }
    try await settler.closeGracefully()
    var restore: (seconds: Double, cpu: Double?)?
    if patients == 1 {
        restore = try await restoreBaseline(of: databaseName) { name in
            var components = URLComponents(string: settings["GLUCOBRIDGE_TEST_POSTGRES_URL"]!)!
            components.path = "/" + name
            return components.string!
        }
    }
    _ = try await adminConnection.query(
        PostgresQuery(unsafeSQL: "DROP DATABASE \(databaseName) WITH (FORCE)"), logger: logger
    ).collect()
    try? FileManager.default.removeItem(at: roundFolder)
    var result = measured
    result.restore = restore
    result.readings = firstReports.reduce(0) { $0 + ($1.written["glucose_reading"] ?? 0) }
    result.rows = firstReports.reduce(0) { $0 + $1.rowsWritten }
    result.resent = secondReports.reduce(0) { $0 + $1.rowsWritten + $1.rowsDeleted }
    return result
}

func cpu(_ seconds: Double?) -> String { seconds.map { String(format: "%.1f s", $0) } ?? "not shown by this machine" }
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

let baselineRows = patients * readingsPerPatient
var results: [Round] = []
for round in 0..<rounds {
    let result = try await runRound(round)
    results.append(result)
    print(
        """
        round \(round + 1) of \(rounds) (\(round % 2 == 0 ? "sync first" : "baseline first")): \
        \(patients) patients × \(days) days, \(result.readings) readings, \(result.rows) rows in all (logs, Days, sources, import runs)
          first sync, all patients at once: \(String(format: "%.1f", result.first.seconds)) s, \
        \(Int(Double(result.rows) / result.first.seconds)) rows/s; server CPU \(cpu(result.first.cpu))
          second sync: \(String(format: "%.2f", result.second.seconds)) s, \(result.resent) rows sent; server CPU \(cpu(result.second.cpu))
          baseline, COPY of the same \(baselineRows) readings by one connection: \(String(format: "%.1f", result.baseline.seconds)) s, \
        \(Int(Double(baselineRows) / result.baseline.seconds)) rows/s; server CPU \(cpu(result.baseline.cpu))
          first sync / baseline: \(String(format: "%.2f", result.first.seconds / result.baseline.seconds))× the time\
        \(result.first.cpu.flatMap { f in result.baseline.cpu.map { String(format: ", %.2f× the server CPU", f / $0) } } ?? "")
        """)
    if let restore = result.restore {
        print(
            """
              psql loading pg_dump's dump of the same central database: \(String(format: "%.2f", restore.seconds)) s; \
            server CPU \(cpu(restore.cpu))
              first sync / psql load: \(String(format: "%.2f", result.first.seconds / restore.seconds))× the time\
            \(result.first.cpu.flatMap { f in restore.cpu.map { String(format: ", %.2f× the server CPU", f / $0) } } ?? "")
            """)
    }
}
let timeRatios = results.map { $0.first.seconds / $0.baseline.seconds }
let cpuRatios = results.compactMap { r in r.first.cpu.flatMap { f in r.baseline.cpu.map { f / $0 } } }
let secondRatios = results.map { $0.second.seconds / $0.baseline.seconds }
print(
    """
    median of \(rounds) rounds: first sync / baseline \(String(format: "%.2f", median(timeRatios)))× the time \
    (rounds \(timeRatios.map { String(format: "%.2f", $0) }.joined(separator: ", ")))\
    \(cpuRatios.count == rounds ? String(format: ", %.2f× the server CPU", median(cpuRatios)) + " (rounds \(cpuRatios.map { String(format: "%.2f", $0) }.joined(separator: ", ")))" : ""); \
    second sync / baseline \(String(format: "%.3f", median(secondRatios)))× the time
    """)

let restoreRatios = results.compactMap { r in r.restore.map { r.first.seconds / $0.seconds } }
if restoreRatios.count == rounds {
    print(
        """
        median of \(rounds) rounds: first sync / psql load of pg_dump's dump \(String(format: "%.2f", median(restoreRatios)))× \
        the time (rounds \(restoreRatios.map { String(format: "%.2f", $0) }.joined(separator: ", ")))
        """)
}

try await adminConnection.closeGracefully()
try? FileManager.default.removeItem(at: folder)
