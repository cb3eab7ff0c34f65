// Decode+store throughput of a Dexcom receiver import, against a plain SQLite insert loop
// measured in the same run. Run with: swift run -c release glucobridge-bench [days]
import Capture
import Drivers
import Foundation
import GRDB
import Importer
import Logging
import Simulators
import Store
import Transport

let days = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 90
let readingsCount = days * 288
let repetitions = 5
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glucobridge-bench-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

// 1. A generated receiver dump, recorded as a usbmon pcap exactly as `import --record` writes one.
let lastSystem: UInt32 = 560_000_000
var egvPages = DexcomPageBuilder.generatedEGVPages(count: readingsCount, lastSystemSeconds: lastSystem, displayOffset: -25_200)
let receiver = DexcomReceiverSimulator(
    pages: [DexcomPartition.manufacturingData.rawValue: [0: DexcomPageBuilder.manufacturingPage(serial: "SMBENCH01", systemSeconds: 1)],
            DexcomPartition.egvData.rawValue: egvPages],
    systemTime: lastSystem + 60, displayTimeOffset: -25_200,
    hostClock: { Date(timeIntervalSince1970: 1_790_768_060) })
let capture = folder.appendingPathComponent("receiver-\(days)d.pcap")
let recorder = try RecordingUSBTransport(recording: receiver, to: capture)
_ = try DexcomDriver.download(over: recorder, after: { _ in [:] })
try recorder.finish()
egvPages.removeAll()
let captureBytes = (try FileManager.default.attributesOfItem(atPath: capture.path)[.size] as? Int) ?? 0

var quiet = Logger(label: "glucobridge.bench")
quiet.logLevel = .warning

/// The median wall time of `repetitions` runs, in seconds.
func medianSeconds(_ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<repetitions {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return times.sorted()[times.count / 2]
}

/// Readings per second for a run over the whole dump.
func measure(_ label: String, _ body: () throws -> Void) rethrows -> Double {
    Double(readingsCount) / (try medianSeconds(body))
}

func freshStorePath() -> String {
    folder.appendingPathComponent("store-\(UUID().uuidString).sqlite").path
}

// 2. Baseline: the same number of rows (time, value) inserted by a prepared statement in one
// transaction into a WAL SQLite file, with no decoding, no Days and no tags.
let baseline = try measure("baseline") {
    let queue = try DatabaseQueue(path: freshStorePath())
    try queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        try db.execute(sql: "CREATE TABLE reading (id INTEGER PRIMARY KEY, time TEXT NOT NULL, value REAL NOT NULL)")
    }
    try queue.write { db in
        let statement = try db.makeStatement(sql: "INSERT INTO reading (time, value) VALUES (?, ?)")
        for i in 0..<readingsCount {
            try statement.execute(arguments: ["2026-01-01 00:00:\(i % 60).000", Double(40 + i % 360)])
        }
    }
}

// 3. Decode only: read the capture, replay it to the driver, normalise.
let decodeOnly = try measure("decode") {
    let parsed = try USBCaptureReader.read(contentsOf: capture)
    let device = CapturedDevice.devices(in: parsed).first { $0.hasDescriptors }!
    let download = try DexcomDriver.download(over: ReplayUSBTransport(device), after: { _ in [:] })
    precondition(download.glucose.count == readingsCount)
}

// 4. The whole import: capture → driver → normaliser → store (Days, tags, idempotent keys).
let fullImport = try measure("import") {
    let store = try SharedStore(path: freshStorePath(), timeZone: TimeZone(identifier: "UTC"))
    let outcome = try Importer(store: store, logger: quiet).replay(captureAt: capture)
    precondition(outcome.summary.added == readingsCount)
}

// 5. Re-import into a store that has it all: the driver's cursor stops it at the newest page.
let reimportStore = try SharedStore(path: freshStorePath(), timeZone: TimeZone(identifier: "UTC"))
let firstStart = DispatchTime.now().uptimeNanoseconds
_ = try Importer(store: reimportStore, logger: quiet).replay(captureAt: capture)
let firstImport = Double(DispatchTime.now().uptimeNanoseconds - firstStart) / 1e9
var reread = 0
let reimport = try medianSeconds {
    let outcome = try Importer(store: reimportStore, logger: quiet).replay(captureAt: capture)
    precondition(outcome.summary.added == 0)
    reread = outcome.summary.recordsRead
}

func line(_ label: String, _ rate: Double) -> String {
    let padded = label.padding(toLength: 46, withPad: " ", startingAt: 0)
    return padded + String(format: "%10.0f readings/s  %6.3f× baseline", rate, rate / baseline)
}
print("glucobridge benchmark: \(readingsCount) readings (\(days) days of 5-minute EGVs), capture \(captureBytes / 1024) KiB, median of \(repetitions)")
print(line("baseline: plain SQLite insert loop", baseline))
print(line("decode only: pcap → driver → normalised", decodeOnly))
print(line("import: pcap → driver → store (new store)", fullImport))
print(String(format: "re-import of the same capture: %.1f ms (the cursor stops it after the newest page: %d records read, 0 added), against %.1f ms for the first import",
             reimport * 1000, reread, firstImport * 1000))
