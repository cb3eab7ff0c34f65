import CSQLiteConfig
import Drivers
import Foundation
import GRDB
import Importer
import Logging
import Simulators
import Store

/// The FIT figures: an eight-hour ride at one record a second (``FITRideWriter``, about 1 MB),
/// decoded by glucobridge (``FITDecoder`` and ``FITActivityFile``) and by Garmin's own
/// `garmin-fit-sdk` (PyPI; its `Decoder.read()` timed inside its own process, the file already in
/// memory), and imported whole against the store floor for its rows (SQLite inserting the
/// import's own minute, minute part and exercise rows with `INSERT … SELECT`).
struct FITRideFigures {
    var bytes: Int
    var records: Int
    var decode: Double
    var sdkDecode: Double?
    var sdkRecords: Int?
    var sdkMissing: String?
    var importWhole: Double
    var floor: Double
    var minutes: Int

    static func measure(repetitions: Int, in folder: URL) throws -> FITRideFigures {
        let start = Date(timeIntervalSince1970: 1_719_216_000)  // 2024-06-24T08:00:00Z
        let ride = folder.appendingPathComponent("ride-8h.fit")
        let bytes = FITRideWriter(start: start, hours: 8).bytes()
        try Data(bytes).write(to: ride)

        var records = 0
        var decodes: [Double] = []
        for _ in 0..<repetitions {
            decodes.append(
                try timed {
                    let file = try FITDecoder.decode(bytes, name: ride.lastPathComponent)
                    records = try FITActivityFile(file).samples.count
                })
        }

        var quiet = Logger(label: "glucobridge.bench")
        quiet.logLevel = .warning
        let blank = freshPath(in: folder)
        _ = try SharedStore(path: blank, timeZone: TimeZone(identifier: "UTC"), access: .serial)
        var imports: [Double] = []
        var filled = ""
        for _ in 0..<repetitions {
            let path = freshPath(in: folder)
            try FileManager.default.copyItem(atPath: blank, toPath: path)
            imports.append(
                try timed {
                    let store = try SharedStore(path: path, timeZone: TimeZone(identifier: "UTC"), access: .serial)
                    _ = try Importer(store: store, logger: quiet).run(.capture(ride))
                })
            filled = path
        }
        let empty = freshPath(in: folder)
        try DatabaseQueue(path: filled).writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [empty]) }
        let minutes = try DatabaseQueue(path: filled).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM activity_minute") ?? 0 }
        try DatabaseQueue(path: empty).writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "DELETE FROM activity_minute_part")
            try db.execute(sql: "DELETE FROM activity_minute")
            try db.execute(sql: "DELETE FROM exercise")
            try db.execute(sql: "VACUUM")
        }
        var floors: [Double] = []
        for _ in 0..<repetitions {
            let path = freshPath(in: folder)
            try FileManager.default.copyItem(atPath: empty, toPath: path)
            floors.append(
                try timed {
                    var configuration = Configuration()
                    configuration.foreignKeysEnabled = true
                    try DatabaseQueue(path: path, configuration: configuration).writeWithoutTransaction { db in
                        try db.execute(sql: "PRAGMA synchronous = FULL")
                        try db.execute(sql: "ATTACH DATABASE ? AS filled", arguments: [filled])
                        precondition(csqlite_enable_triggers(db.sqliteConnection, 0) == 0, "triggers stayed on")
                        try db.inTransaction(.immediate) {
                            try db.execute(sql: "INSERT INTO main.exercise SELECT * FROM filled.exercise")
                            try db.execute(sql: "INSERT INTO main.activity_minute SELECT * FROM filled.activity_minute")
                            try db.execute(sql: "INSERT INTO main.activity_minute_part SELECT * FROM filled.activity_minute_part")
                            return .commit
                        }
                        try db.execute(sql: "DETACH DATABASE filled")
                    }
                })
        }

        var figures = FITRideFigures(
            bytes: bytes.count, records: records, decode: median(decodes), importWhole: median(imports), floor: median(floors), minutes: minutes)
        switch sdkDecode(ride, repetitions: repetitions) {
        case .success(let (seconds, count)):
            figures.sdkDecode = seconds
            figures.sdkRecords = count
        case .failure(let why):
            figures.sdkMissing = why.reason
        }
        return figures
    }

    struct Missing: Error { var reason: String }

    /// The median of `repetitions` timed `Decoder.read()` calls of garmin-fit-sdk in python3, and
    /// the record messages it read.
    static func sdkDecode(_ ride: URL, repetitions: Int) -> Result<(Double, Int), Missing> {
        let script = """
            import sys, time
            from garmin_fit_sdk import Decoder, Stream
            data = bytearray(open(sys.argv[1], 'rb').read())
            times = []
            for _ in range(int(sys.argv[2])):
                started = time.perf_counter()
                messages, errors = Decoder(Stream.from_byte_array(data)).read()
                times.append(time.perf_counter() - started)
                if errors:
                    raise SystemExit('garmin-fit-sdk: %s' % errors)
            times.sort()
            print(times[len(times) // 2], len(messages['record_mesgs']))
            """
        guard let python = onPath("python3") else { return .failure(Missing(reason: "python3 is not installed")) }
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, ride.path, "\(repetitions)"]
        process.standardOutput = output
        process.standardError = output
        do { try process.run() } catch { return .failure(Missing(reason: "python3 did not start: \(error)")) }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let words = text.split(whereSeparator: \.isWhitespace)
        guard process.terminationStatus == 0, words.count == 2, let seconds = Double(words[0]), let count = Int(words[1]) else {
            return .failure(
                Missing(reason: "garmin-fit-sdk (pip install garmin-fit-sdk) did not decode it: \(text.split(separator: "\n").last ?? "")"))
        }
        return .success((seconds, count))
    }

    var text: String {
        var lines = [
            "FIT: an 8-hour ride, \(bytes / 1024) KiB, \(records) records (FITRideWriter); median of the runs in this program",
            String(format: "  glucobridge decode (FITDecoder + FITActivityFile)  %8.1f ms  %6.1f MB/s", decode * 1000, Double(bytes) / decode / 1e6),
        ]
        if let sdkDecode, let sdkRecords {
            lines.append(
                String(
                    format: "  garmin-fit-sdk Decoder.read() (python3)            %8.1f ms  %6.1f MB/s  glucobridge %.1f× faster; %d records",
                    sdkDecode * 1000, Double(bytes) / sdkDecode / 1e6, sdkDecode / decode, sdkRecords))
            precondition(sdkRecords == records, "garmin-fit-sdk read \(sdkRecords) records, glucobridge \(records)")
        } else {
            lines.append("  (no garmin-fit-sdk figure: \(sdkMissing ?? "?"))")
        }
        lines.append(
            String(format: "  glucobridge replay into a new store                %8.1f ms  (%d minutes, 1 session)", importWhole * 1000, minutes))
        lines.append(
            String(format: "  store floor: its rows, INSERT … SELECT              %8.1f ms  import / floor %.2f", floor * 1000, importWhole / floor))
        return lines.joined(separator: "\n")
    }
}
