// Dexcom import speed: a 90-day G6 receiver dump (recorded as another program reads it, so it
// replays passively) imported into a new store, imported again, and a 365-day dump, each against
// a plain prepared-statement insert of the same rows timed in the same run; SQLite's own cost of
// storing those rows in the store's schema (the store floor); and the longest wait of another
// connection that takes the write lock every 20 ms during the 90-day import and during the floor;
// and the AGP report of the last 90 and the last 365 Days of those stores, each made in this
// process as `glucobridge report` makes it; and the export of the 365-day store as CSV, JSON and
// Nightscout entries, each a whole process (this program again, as `glucobridge export` writes
// it) against the `sqlite3` shell's `-csv` output of the same query, timed in turn; and an
// Accu-Chek Guide's whole memory (720 results) and a OneTouch Verio's (500 records) replayed into
// a new store, each against the store floor of the same rows.
//
//   swift run -c release glucobridge-bench                  all figures (instructions too, under valgrind)
//   swift run -c release glucobridge-bench --no-instructions
//   swift run -c release glucobridge-bench --sync --daemon  also the central sync (200 patients at once, and one
//   patient alone) and the idle daemon (their own programs)
//   swift run -c release glucobridge-bench --meters         only the two meters' figures
//   swift run -c release glucobridge-bench --captures DIR   only write the two captures to DIR
//   glucobridge-bench --capture DAYS FILE                     only write a DAYS-day G6 receiver capture
//   glucobridge-bench --export csv|json|nightscout STORE      the export alone, on stdout
import CSQLiteConfig
import CaptureUSB
import Drivers
import Export
import Foundation
import GRDB
import Importer
import Ingest
import Logging
import Report
import Simulators
import Store
import Transport
import TransportReplay

let arguments = Array(CommandLine.arguments.dropFirst())
let repetitions = 5

/// The figures, in the order they are printed.
enum Phase: String, CaseIterable {
    case baseline
    case floor90 = "floor-90"
    case import90 = "import-90"
    case reimport90 = "reimport-90"
    case import365 = "import-365"
    case report90 = "report-90"
    case report365 = "report-365"
    case floorMeter = "floor-accuchek"
    case importMeter = "import-accuchek"
    case floorVerio = "floor-verio"
    case importVerio = "import-verio"

    var label: String {
        switch self {
        case .baseline: "baseline: prepared INSERT of the 90-day rows"
        case .floor90: "store floor: the 90-day rows, INSERT … SELECT"
        case .import90: "90-day replay into a new store"
        case .reimport90: "90-day replay again (nothing new)"
        case .import365: "365-day replay into a new store"
        case .report90: "report of the last 90 Days"
        case .report365: "report of the last 365 Days"
        case .floorMeter: "store floor: the Accu-Chek rows"
        case .importMeter: "Accu-Chek memory replay into a new store"
        case .floorVerio: "store floor: the Verio rows"
        case .importVerio: "Verio memory replay into a new store"
        }
    }
}

struct Captures {
    let folder: URL
    var days90: URL { folder.appendingPathComponent("receiver-g6-90d.pcap") }
    var days365: URL { folder.appendingPathComponent("receiver-g6-365d.pcap") }
    var meter: URL { folder.appendingPathComponent("accuchek-guide-720.pcap") }
    var verio: URL { folder.appendingPathComponent("verio-reflect-500.pcap") }

    /// An Accu-Chek Guide's whole memory: 720 results in mg/dL, one every four hours.
    static let meterResults = 720
    /// A OneTouch Verio's whole memory: 500 records in mg/dL, one every four hours.
    static let verioRecords = 500

    func write() throws {
        try DexcomVendorDump.record(days: 90, to: days90)
        try DexcomVendorDump.record(days: 365, to: days365)
        try writeMeters()
    }

    /// The two meters' captures alone.
    func writeMeters() throws {
        let now = Date(timeIntervalSince1970: 1_717_243_200)  // 2024-06-01T12:00:00Z
        let seconds = Int64(now.timeIntervalSince1970)
        let entries = (0..<Self.meterResults).map { index in
            AccuChekEntry(
                position: Int64(index), time: PHDAbsoluteTime(seconds: seconds - 3600 - Int64(Self.meterResults - 1 - index) * 4 * 3600),
                glucose: UInt16(40 + (index * 37) % 361), status: 0)
        }
        let guide = AccuChekMeterSimulator(
            serial: "92900BENCH1", unit: .milligramsPerDeciliter, clock: PHDAbsoluteTime(seconds: seconds), entries: entries,
            hostClock: { now })
        try AccuChekMeterSimulator.record(guide, to: meter)
        let newest = UInt32(seconds - 3600 - 946_684_800)
        let reflect = VerioMeterSimulator(
            meter: VerioMeter(
                serial: "RPTBENCH01", model: "OneTouch Verio Reflect", clock: UInt32(seconds - 946_684_800),
                records: VerioMeter.history(
                    count: Self.verioRecords, newest: newest, every: 4 * 3600,
                    values: (0..<Self.verioRecords).map { UInt16(40 + ($0 * 37) % 361) })),
            productID: 0x000C, hostClock: { now })
        try VerioMeterSimulator.record(reflect, to: verio)
    }
}

func freshPath(in folder: URL) -> String {
    folder.appendingPathComponent("store-\(UUID().uuidString).sqlite").path
}

/// The rows of the baseline: what the import stores of each reading, as four columns.
func baselineRows(_ capture: URL) throws -> [(time: String, mgdl: Double, trend: String?, key: String)] {
    let parsed = try USBCaptureReader.read(contentsOf: capture)
    guard let device = RecordedUSBDevice.devices(in: parsed).first(where: \.hasDescriptors) else {
        throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: capture.path])
    }
    let download = try DexcomDriver.decode(recorded: device)
    let window = PlausibleWindow.forCapture(timestamps: parsed.transfers.compactMap { $0.timestamp })
    let batch = try Normaliser.batch(
        from: download, mode: .live, origin: nil, startedAt: Date(), timeZone: TimeZone(identifier: "UTC")!, window: window)
    let format = ISO8601DateFormatter()
    return batch.glucose.map { (format.string(from: $0.time), $0.mgdl, $0.trend?.rawValue, $0.recordKey) }
}

/// A plain prepared-statement insert of `rows` into a new WAL file, in one transaction.
func insertBaseline(_ rows: [(time: String, mgdl: Double, trend: String?, key: String)], in folder: URL) throws {
    let queue = try DatabaseQueue(path: freshPath(in: folder))
    try queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        try db.execute(sql: "CREATE TABLE reading (time TEXT NOT NULL, mgdl REAL NOT NULL, trend TEXT, record_key TEXT NOT NULL)")
    }
    try queue.write { db in
        let statement = try db.makeStatement(sql: "INSERT INTO reading VALUES (?, ?, ?, ?)")
        for row in rows {
            try statement.execute(arguments: [row.time, row.mgdl, row.trend, row.key])
        }
    }
}

/// What the store floor starts from: `empty`, a store with the 90-day import's Days, source and
/// run but no readings, and `filled`, the store that import made.
struct FloorFiles {
    var empty: String
    var filled: String

    /// From the import of `capture` (the 90-day dump by default), which stores `added` readings.
    init(_ captures: Captures, capture: URL? = nil, added: Int? = nil) throws {
        filled = freshPath(in: captures.folder)
        try replay(
            capture ?? captures.days90, into: try SharedStore(path: filled, timeZone: TimeZone(identifier: "UTC"), access: .serial),
            expectingAdded: added ?? DexcomVendorDump.readings(days: 90))
        empty = freshPath(in: captures.folder)
        try DatabaseQueue(path: filled).writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [empty])
        }
        try DatabaseQueue(path: empty).writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "DELETE FROM glucose")
            try db.execute(sql: "VACUUM")
        }
    }
}

/// SQLite's own cost of storing the 90-day readings as the import stores them: a copy of
/// `files.empty` (the import makes its store too), then one transaction (waiting up to 5 s for
/// the lock, as the import does) that inserts every row of `files.filled`'s `glucose` with one
/// `INSERT … SELECT`, with the import's connection settings (foreign keys on, `synchronous =
/// FULL` for the commit, statement journals in memory, triggers off), and the close, which checkpoints. No
/// decoding, no binding, no Day lookups: the least any importer into this schema pays. `body`
/// runs with the copy's path once it exists.
func insertFloor(_ files: FloorFiles, in folder: URL, body: (String) throws -> Void = { _ in }) throws {
    let path = freshPath(in: folder)
    try FileManager.default.copyItem(atPath: files.empty, toPath: path)
    try body(path)
    var configuration = Configuration()
    configuration.foreignKeysEnabled = true
    configuration.busyMode = .timeout(5)
    try DatabaseQueue(path: path, configuration: configuration).writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA synchronous = FULL")
        try db.execute(sql: "PRAGMA temp_store = MEMORY")
        try db.execute(sql: "PRAGMA cache_size = -32000")
        try db.execute(sql: "ATTACH DATABASE ? AS filled", arguments: [files.filled])
        precondition(csqlite_enable_triggers(db.sqliteConnection, 0) == 0, "triggers stayed on")
        try db.inTransaction(.immediate) {
            try db.execute(sql: "INSERT INTO main.glucose SELECT * FROM filled.glucose")
            return .commit
        }
        try db.execute(sql: "DETACH DATABASE filled")
    }
}

func replay(_ capture: URL, into store: SharedStore, expectingAdded added: Int?) throws {
    var quiet = Logger(label: "glucobridge.bench")
    quiet.logLevel = .warning
    let result = try Importer(store: store, logger: quiet).run(.capture(capture))
    let stored = result.devices.flatMap(\.glucose).reduce(0) { $0 + $1.summary.added }
    if let added { precondition(stored == added, "\(stored) added, expected \(added)") }
}

func newStore(in folder: URL) throws -> SharedStore {
    // One connection, as `glucobridge replay` opens it.
    try SharedStore(path: freshPath(in: folder), timeZone: TimeZone(identifier: "UTC"), access: .serial)
}

/// Prepares what `phase` needs (not measured), then returns the measured work.
func prepare(_ phase: Phase, _ captures: Captures, rows: @autoclosure () throws -> [(time: String, mgdl: Double, trend: String?, key: String)])
    throws -> () throws -> Void
{
    let folder = captures.folder
    switch phase {
    case .baseline:
        let rows = try rows()
        return { try insertBaseline(rows, in: folder) }
    case .floor90:
        let files = try FloorFiles(captures)
        return { try insertFloor(files, in: folder) }
    case .import90:
        return { try replay(captures.days90, into: try newStore(in: folder), expectingAdded: DexcomVendorDump.readings(days: 90)) }
    case .reimport90:
        let store = try newStore(in: folder)
        try replay(captures.days90, into: store, expectingAdded: nil)
        return { try replay(captures.days90, into: store, expectingAdded: 0) }
    case .import365:
        return { try replay(captures.days365, into: try newStore(in: folder), expectingAdded: DexcomVendorDump.readings(days: 365)) }
    case .report90, .report365:
        let days = phase == .report90 ? 90 : 365
        let store = try newStore(in: folder)
        try replay(phase == .report90 ? captures.days90 : captures.days365, into: store, expectingAdded: nil)
        return { try report(store, lastDays: days) }
    case .floorMeter:
        let files = try FloorFiles(captures, capture: captures.meter, added: Captures.meterResults)
        return { try insertFloor(files, in: folder) }
    case .importMeter:
        return { try replay(captures.meter, into: try newStore(in: folder), expectingAdded: Captures.meterResults) }
    case .floorVerio:
        let files = try FloorFiles(captures, capture: captures.verio, added: Captures.verioRecords)
        return { try insertFloor(files, in: folder) }
    case .importVerio:
        return { try replay(captures.verio, into: try newStore(in: folder), expectingAdded: Captures.verioRecords) }
    }
}

/// The AGP page of the last `days` Days ending with the newest reading's Day, as
/// `glucobridge report --last days` makes it (the file is not written).
func report(_ store: SharedStore, lastDays days: Int) throws {
    let newest = try store.latestGlucoseTime(kind: .sensor)!
    let end = DayDate(instant: newest, timeZone: store.timeZone).adding(days: 1)
    let period = DateInterval(start: end.adding(days: -days).start(in: store.timeZone), end: end.start(in: store.timeZone))
    let page = ReportPage.html(try ReportInput(store: store, period: period, unit: .milligramsPerDeciliter))
    precondition(page.utf8.count > 10_000)
}

/// The work callgrind counts (`--toggle-collect=glucobridge_bench_measured`).
@_silgen_name("glucobridge_bench_measured")
@inline(never)
func measured(_ body: () throws -> Void) rethrows {
    try body()
}

/// Instructions of one run of `phase`, counted by callgrind in a child process; nil without valgrind.
func instructions(_ phase: Phase, _ captures: Captures) -> Int? {
    callgrind([
        "--toggle-collect=glucobridge_bench_measured",
        "/proc/self/exe".resolvedExecutable, "--measure", phase.rawValue, captures.folder.path,
    ])
}

/// The instructions callgrind counts running `arguments` (its options, then a program and its
/// arguments) in a child process; nil without valgrind.
func callgrind(_ arguments: [String]) -> Int? {
    let valgrind = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"].first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let valgrind else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: valgrind)
    process.arguments = ["--tool=callgrind", "--callgrind-out-file=/dev/null"] + arguments
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0,
        let line = output.split(separator: "\n").first(where: { $0.contains("Collected :") }),
        let count = line.split(separator: " ").last.flatMap({ Int($0) })
    else { return nil }
    return count
}

extension String {
    /// The file a `/proc/self/exe`-style link points at.
    var resolvedExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: self)) ?? CommandLine.arguments[0]
    }
}

/// Another connection to a store that takes its write lock (BEGIN IMMEDIATE, then COMMIT) every
/// 20 ms on a thread of its own, as another program writing the store would, and keeps its
/// longest wait. Its busy handler retries every 0.2 ms, so a wait is measured to about that: the
/// longest wait is the longest time the import held the lock, less at most the 20 ms pause.
final class LockTaker: @unchecked Sendable {
    private let state = NSLock()
    private var stopped = false
    private var longest = 0.0
    private var failure: (any Error)?
    private let finished = DispatchSemaphore(value: 0)

    init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .callback { _ in
            usleep(200)
            return true
        }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        Thread.detachNewThread { [self] in
            do {
                try queue.writeWithoutTransaction { db in
                    while !state.withLock({ stopped }) {
                        let start = DispatchTime.now().uptimeNanoseconds
                        try db.execute(sql: "BEGIN IMMEDIATE")
                        let waited = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                        try db.execute(sql: "COMMIT")
                        state.withLock { longest = max(longest, waited) }
                        usleep(20_000)
                    }
                }
            } catch {
                state.withLock { failure = error }
            }
            finished.signal()
        }
    }

    /// Stops taking the lock; the longest wait in seconds.
    func finish() throws -> Double {
        state.withLock { stopped = true }
        finished.wait()
        return try state.withLock {
            if let failure { throw failure }
            return longest
        }
    }
}

/// The longest wait of a ``LockTaker`` during a 90-day import into a new store.
func lockWait(_ captures: Captures) throws -> Double {
    let store = try newStore(in: captures.folder)
    let taker = try LockTaker(path: store.path)
    usleep(100_000)
    try replay(captures.days90, into: store, expectingAdded: DexcomVendorDump.readings(days: 90))
    return try taker.finish()
}

/// The longest wait of a ``LockTaker`` during the store floor's insert.
func floorLockWait(_ captures: Captures, _ files: FloorFiles) throws -> Double {
    var taker: LockTaker?
    try insertFloor(files, in: captures.folder) { path in
        taker = try LockTaker(path: path)
        usleep(100_000)
    }
    return try taker!.finish()
}

/// Seconds `body` takes.
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ values: [Double]) -> Double {
    values.sorted()[values.count / 2]
}

// MARK: - Export

/// The export formats, as `glucobridge export --format` names them.
let exportFormats: [(name: String, format: GlucoseExport.Format)] = [("csv", .csv), ("json", .json), ("nightscout", .nightscout)]

/// The path of a program on PATH.
func onPath(_ name: String) -> String? {
    (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Runs `arguments` (a program and its arguments) with stdout to /dev/null, as a shell runs
/// `command > /dev/null`; its wall time in seconds.
func wholeProcess(_ arguments: [String]) throws -> Double {
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var child: pid_t = 0
    let start = DispatchTime.now().uptimeNanoseconds
    let spawned = posix_spawn(&child, arguments[0], &actions, nil, &argv, environ)
    guard spawned == 0 else { throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: arguments[0]]) }
    var status: Int32 = 0
    while waitpid(child, &status, 0) < 0, errno == EINTR {}
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    precondition(status == 0, "\(arguments.joined(separator: " ")) ended with status \(status)")
    return seconds
}

/// The largest resident size, in KiB, of a JSON export of the store at `path`: the child's own
/// high-water mark (`VmHWM`), which it prints on stderr as it ends. (The `ru_maxrss` of a child
/// spawned with `vfork` semantics counts the parent's pages it shared before `exec`.)
func exportResidentKiB(_ path: String) throws -> Int {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe".resolvedExecutable)
    process.arguments = ["--export", "json", path, "--resident"]
    process.standardOutput = FileHandle.nullDevice
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kib = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: "/proc/\(process.processIdentifier)/status"]) }
    return kib
}

/// `glucobridge export --format format` of the store at `path` (what `--export` runs).
func exportCommand(_ format: String, _ path: String) -> [String] {
    ["/proc/self/exe".resolvedExecutable, "--export", format, path]
}

/// The `sqlite3` shell writing the rows the glucose export reads, as CSV.
func sqliteCommand(_ sqlite3: String, _ path: String) -> [String] {
    [sqlite3, "-csv", path, SharedStore.glucoseExportSQL]
}

// MARK: - Main

if arguments.first == "--captures", arguments.count == 2 {
    let captures = Captures(folder: URL(fileURLWithPath: arguments[1]))
    try FileManager.default.createDirectory(at: captures.folder, withIntermediateDirectories: true)
    try captures.write()
    print(captures.days90.path)
    print(captures.days365.path)
    exit(0)
}

if arguments.first == "--capture", arguments.count == 3, let days = Int(arguments[1]), (1...365).contains(days) {
    let file = URL(fileURLWithPath: arguments[2])
    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try DexcomVendorDump.record(days: days, to: file)
    print("\(file.path): \(DexcomVendorDump.readings(days: days)) readings")
    exit(0)
}

if arguments.first == "--export", (3...4).contains(arguments.count), let format = exportFormats.first(where: { $0.name == arguments[1] }) {
    // As `glucobridge export --format … --store …` opens the store and writes the readings.
    let store = try SharedStore(path: arguments[2], mode: .existing, access: .serial)
    var output = ExportOutput()
    try GlucoseExport.write(store, format: format.format, into: &output)
    try output.flush()
    if arguments.last == "--resident", let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    {
        FileHandle.standardError.write(Data((line.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ") + "\n").utf8))
    }
    exit(0)
}

if arguments.first == "--measure", arguments.count == 3, let phase = Phase(rawValue: arguments[1]) {
    let captures = Captures(folder: URL(fileURLWithPath: arguments[2]))
    let work = try prepare(phase, captures, rows: try baselineRows(captures.days90))
    try measured(work)
    exit(0)
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glucobridge-bench-\(getpid())")
if arguments.first == "--meters" {
    // The meters' figures alone: each memory's replay against the store floor of its rows.
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let captures = Captures(folder: folder)
    try captures.writeMeters()
    let pairs: [(floor: Phase, replay: Phase, name: String)] = [(.floorMeter, .importMeter, "Accu-Chek"), (.floorVerio, .importVerio, "Verio")]
    let phases = pairs.flatMap { [$0.floor, $0.replay] }
    let works = try phases.map { ($0, try prepare($0, captures, rows: [])) }
    var samples: [Phase: [Double]] = [:]
    for _ in 0..<repetitions {
        for (phase, work) in works { samples[phase, default: []].append(try timed(work)) }
    }
    let seconds = samples.mapValues(median)
    let counts =
        arguments.contains("--no-instructions")
        ? [:] : Dictionary(uniqueKeysWithValues: phases.compactMap { p in instructions(p, captures).map { (p, $0) } })
    print("glucobridge-bench --meters: median of \(repetitions) wall times in this process, the phases taking turns")
    for phase in phases {
        print(
            phase.label.padding(toLength: 46, withPad: " ", startingAt: 0) + String(format: "%7.1f ms", seconds[phase]! * 1000)
                + (counts[phase].map { String(format: "   %7.1f M instructions", Double($0) / 1e6) } ?? ""))
    }
    for pair in pairs {
        print(
            "  \(pair.name) memory / store floor".padding(toLength: 34, withPad: " ", startingAt: 0)
                + String(format: "%6.3f", seconds[pair.replay]! / seconds[pair.floor]!)
                + (counts[pair.replay].flatMap { r in counts[pair.floor].map { String(format: "   instructions %6.3f", Double(r) / Double($0)) } }
                    ?? ""))
    }
    if counts.isEmpty, !arguments.contains("--no-instructions") { print("(no instruction counts: valgrind is not installed)") }
    try? FileManager.default.removeItem(at: folder)
    exit(0)
}
if arguments.first == "--fit" {
    // The FIT figures alone.
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let figures = try FITRideFigures.measure(repetitions: repetitions, in: folder)
    try? FileManager.default.removeItem(at: folder)
    print(figures.text)
    exit(0)
}
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let captures = Captures(folder: folder)
try captures.write()
let rows = try baselineRows(captures.days90)
let size = { (url: URL) in ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0) / 1024 }

// The phases take turns, each repetition one run of every phase, so that the machine's speed,
// which may drift within a run, weighs on all of them alike.
let works = try Phase.allCases.map { ($0, try prepare($0, captures, rows: rows)) }
var samples: [Phase: [Double]] = [:]
for _ in 0..<repetitions {
    for (phase, work) in works { samples[phase, default: []].append(try timed(work)) }
}
let seconds = samples.mapValues(median)
var lockWaits: [Double] = []
var floorLockWaits: [Double] = []
let floorFiles = try FloorFiles(captures)
for _ in 0..<repetitions {
    lockWaits.append(try lockWait(captures))
    floorLockWaits.append(try floorLockWait(captures, floorFiles))
}
lockWaits.sort()
floorLockWaits.sort()
// The exports of the 365-day store against the sqlite3 shell, whole processes taking turns.
let sqlite3 = onPath("sqlite3")
var exportSeconds: [String: [Double]] = [:]
var exportRatios: [String: [Double]] = [:]
var exportResident: [Int: Int] = [:]
var exportStores: [Int: String] = [:]
if let sqlite3 {
    for days in [90, 365] {
        let store = try newStore(in: folder)
        try replay(days == 90 ? captures.days90 : captures.days365, into: store, expectingAdded: nil)
        exportStores[days] = store.path
    }
    let path = exportStores[365]!
    _ = try wholeProcess(sqliteCommand(sqlite3, path))
    for _ in 0..<repetitions {
        for (name, _) in exportFormats {
            let export = try wholeProcess(exportCommand(name, path))
            let baseline = try wholeProcess(sqliteCommand(sqlite3, path))
            exportSeconds[name, default: []].append(export)
            exportSeconds["sqlite3", default: []].append(baseline)
            exportRatios[name, default: []].append(export / baseline)
        }
    }
    for (days, path) in exportStores { exportResident[days] = try exportResidentKiB(path) }
}

let counting = !arguments.contains("--no-instructions")
var counts: [Phase: Int] = [:]
if counting {
    for phase in Phase.allCases { counts[phase] = instructions(phase, captures) }
}

print(
    """
    glucobridge-bench: Dexcom G6 dumps replayed passively: 90 days (\(DexcomVendorDump.readings(days: 90)) readings, \
    \(size(captures.days90)) KiB pcap) and 365 days (\(DexcomVendorDump.readings(days: 365)) readings, \
    \(size(captures.days365)) KiB); median of \(repetitions) wall times in this process, the phases taking turns
    """)
@MainActor
func row(_ phase: Phase, _ against: Phase, _ name: String) -> String {
    let label = phase.label.padding(toLength: 46, withPad: " ", startingAt: 0)
    var text = label + String(format: "%7.1f ms  %6.3f× %@", seconds[phase]! * 1000, seconds[phase]! / seconds[against]!, name)
    if let count = counts[phase] {
        text += String(format: "   %7.1f M instructions", Double(count) / 1e6)
        if let base = counts[against] { text += String(format: " (%6.3f× %@)", Double(count) / Double(base), name) }
    }
    return text
}
print(row(.baseline, .baseline, "baseline"))
print(row(.floor90, .baseline, "baseline"))
print(row(.import90, .baseline, "baseline"))
print(row(.reimport90, .baseline, "baseline"))
print(row(.import365, .baseline, "baseline"))
print(row(.report90, .baseline, "baseline"))
print(row(.report365, .baseline, "baseline"))
print(row(.floorMeter, .baseline, "baseline"))
print(row(.importMeter, .baseline, "baseline"))
print(row(.floorVerio, .baseline, "baseline"))
print(row(.importVerio, .baseline, "baseline"))
print("ratios between figures:")
print(
    String(format: "  first import / store floor      %6.3f", seconds[.import90]! / seconds[.floor90]!)
        + (counts[.import90].flatMap { r in counts[.floor90].map { String(format: "   instructions %6.3f", Double(r) / Double($0)) } } ?? ""))
print(
    String(format: "  re-import / first import        %6.3f", seconds[.reimport90]! / seconds[.import90]!)
        + (counts[.reimport90].flatMap { r in counts[.import90].map { String(format: "   instructions %6.3f", Double(r) / Double($0)) } } ?? ""))
print(
    String(format: "  365-day / 90-day import         %6.3f", seconds[.import365]! / seconds[.import90]!)
        + (counts[.import365].flatMap { r in counts[.import90].map { String(format: "   instructions %6.3f", Double(r) / Double($0)) } } ?? ""))
print(
    String(format: "  Accu-Chek memory / store floor  %6.3f", seconds[.importMeter]! / seconds[.floorMeter]!)
        + (counts[.importMeter].flatMap { r in counts[.floorMeter].map { String(format: "   instructions %6.3f", Double(r) / Double($0)) } } ?? ""))
print(
    String(format: "  Verio memory / store floor      %6.3f", seconds[.importVerio]! / seconds[.floorVerio]!)
        + (counts[.importVerio].flatMap { r in counts[.floorVerio].map { String(format: "   instructions %6.3f", Double(r) / Double($0)) } } ?? ""))
print(
    String(format: "  365-day / 90-day report        %6.3f", seconds[.report365]! / seconds[.report90]!)
        + (counts[.report365].flatMap { r in counts[.report90].map { String(format: "   instructions %6.3f", Double(r) / Double($0)) } } ?? ""))
print(
    String(
        format: "longest wait of another connection taking the write lock every 20 ms during the 90-day import\n"
            + "  (about the time the import holds the lock): median %.1f ms, max %.1f ms of %d imports; %.3f× the import's time",
        lockWaits[lockWaits.count / 2] * 1000, lockWaits.last! * 1000, lockWaits.count, lockWaits[lockWaits.count / 2] / seconds[.import90]!))
print(
    String(
        format: "  the same during the store floor's insert: median %.1f ms, max %.1f ms of %d",
        floorLockWaits[floorLockWaits.count / 2] * 1000, floorLockWaits.last! * 1000, floorLockWaits.count))
if let sqlite3, let path = exportStores[365] {
    print(
        """
        export of the 365-day store (whole processes, this program exporting as `glucobridge export` does, \
        in turn with the sqlite3 shell's -csv output of the same query; median of \(repetitions) pairs)
        """)
    let baseline = median(exportSeconds["sqlite3"]!)
    var exportCounts: [String: Int] = [:]
    if counting {
        exportCounts["sqlite3"] = callgrind(sqliteCommand(sqlite3, path))
        for (name, _) in exportFormats { exportCounts[name] = callgrind(exportCommand(name, path)) }
    }
    print(
        String(format: "  sqlite3 -csv                     %7.1f ms", baseline * 1000)
            + (exportCounts["sqlite3"].map { String(format: "   %7.1f M instructions", Double($0) / 1e6) } ?? ""))
    for (name, _) in exportFormats {
        var text =
            "  export --format \(name)".padding(toLength: 35, withPad: " ", startingAt: 0)
            + String(format: "%7.1f ms  %6.3f× sqlite3 -csv", median(exportSeconds[name]!) * 1000, median(exportRatios[name]!))
        if let count = exportCounts[name], let base = exportCounts["sqlite3"] {
            text += String(format: "   %7.1f M instructions (%6.3f× sqlite3 -csv)", Double(count) / 1e6, Double(count) / Double(base))
        }
        print(text)
    }
    print("  largest resident size of the JSON export: 90 days \(exportResident[90]!) KiB, 365 days \(exportResident[365]!) KiB")
} else {
    print("(no export figures: the sqlite3 program is not installed)")
}
if counting, counts.isEmpty { print("(no instruction counts: valgrind is not installed)") }

print(try FITRideFigures.measure(repetitions: repetitions, in: folder).text)

// The central sync and the idle daemon are measured by programs of their own (one needs a
// PostgreSQL server, the other a quiet minute); `--sync` and `--daemon` run them from this
// program's folder after the figures above, so that one run prints every figure.
/// Runs the benchmark program `name` beside this one with `extra` arguments, its output shown.
func sibling(_ name: String, _ extra: [String]) throws {
    let program = URL(fileURLWithPath: "/proc/self/exe".resolvedExecutable).deletingLastPathComponent().appendingPathComponent(name).path
    guard FileManager.default.isExecutableFile(atPath: program) else {
        print("(no \(name) figures: build it with `swift build -c release --product \(name)`)")
        return
    }
    fflush(nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = extra
    try process.run()
    process.waitUntilExit()
    if process.terminationStatus != 0 { print("(\(name) ended with status \(process.terminationStatus))") }
}
if arguments.contains("--sync") {
    print("central sync, 200 patients at once (glucobridge-sync-bench 200 90):")
    try sibling("glucobridge-sync-bench", ["200", "90"])
    print("central sync, one patient alone, a year (glucobridge-sync-bench 1 365):")
    try sibling("glucobridge-sync-bench", ["1", "365"])
}
if arguments.contains("--daemon") {
    print("idle daemon (glucobridge-daemon-bench):")
    let capture = "fixtures/dexcom/ecc1-g4-receiver.pcap"
    try sibling("glucobridge-daemon-bench", FileManager.default.fileExists(atPath: capture) ? ["--capture", capture] : [])
}
