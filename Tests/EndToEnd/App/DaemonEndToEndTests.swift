import Foundation
import GRDB
import ImportTestSupport
import TestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// The built `glucobridge daemon`, run as a process on a temporary store and spool folder.
final class DaemonEndToEndTests: XCTestCase {
    /// Generous: the daemon answers in well under a second here, but CI machines are shared.
    let patience: TimeInterval = 90

    func testSpoolImportsOnceFailsCorruptFilesAndStopsCleanly() throws {
        let folder = try Fixtures.temporaryDirectory()
        let spool = folder.appendingPathComponent("spool")
        let store = folder.appendingPathComponent("store.sqlite")
        let log = folder.appendingPathComponent("daemon.log")
        let daemon = try startDaemon(["--spool", spool.path, "--store", store.path, "--tz", "America/New_York"], loggingTo: log)
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }

        // The receiver's capture, renamed into the folder once complete (as the docs advise) …
        let fixture = Fixtures.url("dexcom/ecc1-g4-receiver.pcap")
        try FileManager.default.copyItem(at: fixture, to: spool.appendingPathComponent(".receiver.pcap.part"))
        try FileManager.default.moveItem(at: spool.appendingPathComponent(".receiver.pcap.part"), to: spool.appendingPathComponent("receiver.pcap"))
        // … a capture cut off in the middle of packet 24, written in place …
        let corrupt = try Data(contentsOf: fixture).prefix(3000)
        try corrupt.write(to: spool.appendingPathComponent("cut-short.pcap"))
        try waitFor(spool.appendingPathComponent("done/receiver.pcap"))
        try waitFor(spool.appendingPathComponent("failed/cut-short.pcap.reason.txt"))
        // … and the same session again under another name: stored once.
        try FileManager.default.copyItem(at: fixture, to: spool.appendingPathComponent("again.pcap"))
        try waitFor(spool.appendingPathComponent("done/again.pcap.report.txt"))

        let reason = try String(contentsOf: spool.appendingPathComponent("failed/cut-short.pcap.reason.txt"), encoding: .utf8)
        XCTAssertTrue(
            reason.hasPrefix("cut-short.pcap: packet 24 at byte 2458 claims 598 bytes but only 526 remain — the file is cut short\n"), reason)
        XCTAssertTrue(reason.contains("file: cut-short.pcap (3000 bytes), failed "), reason)
        XCTAssertEqual(try Data(contentsOf: spool.appendingPathComponent("failed/cut-short.pcap")), corrupt, "the file is moved, not changed")
        let report = try String(contentsOf: spool.appendingPathComponent("done/again.pcap.report.txt"), encoding: .utf8)
        XCTAssertTrue(report.contains("device: dexcom SM44792675 (G4Receiver)\n23 records read: 0 new, 23 already stored"), report)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: spool.path).sorted(), ["done", "failed"])

        // Status, asked while the daemon runs.
        let status = try runProcess(BuiltProducts.executable("glucobridge"), ["status", "--store", store.path])
        XCTAssertEqual(status.status, 0, status.stderr)
        let statusLines = status.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(statusLines[1].hasPrefix("daemon: running, pid \(daemon.processIdentifier), since "), status.stdout)
        XCTAssertTrue(statusLines.contains("  spool: \(spool.path): 2 imported, 1 failed since start, 0 waiting"), status.stdout)
        XCTAssertTrue(
            statusLines.contains {
                $0.hasSuffix(
                    " spool cut-short.pcap: cut-short.pcap: packet 24 at byte 2458 claims 598 bytes but only 526 remain — the file is cut short")
            }, status.stdout)
        XCTAssertTrue(
            statusLines.contains {
                $0.hasPrefix("  dexcom SM44792675 (G4Receiver): ")
                    && $0.hasSuffix(" replay-conversation from \(spool.path)/again.pcap: 23 records read: 0 new, 23 already stored")
            }, status.stdout)

        try stop(daemon, with: SIGTERM)
        XCTAssertEqual(daemon.terminationReason, .exit)
        XCTAssertEqual(daemon.terminationStatus, 0)

        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertTrue(
            lines.contains {
                $0.contains("glucobridge.daemon: spool file imported added=23 alreadyStored=0 file=receiver.pcap")
                    && $0.contains("serial=SM44792675 source=dexcom")
            }, lines.joined(separator: "\n"))
        XCTAssertTrue(
            lines.contains { $0.contains("glucobridge.daemon: spool file failed error=\"cut-short.pcap: packet 24 at byte 2458") },
            lines.joined(separator: "\n"))
        XCTAssertTrue(
            lines.last?.contains("glucobridge.daemon: daemon stopped pid=\(daemon.processIdentifier)") == true, lines.joined(separator: "\n"))
        // Which executor ran the daemon's tasks, as a task found it: the event loop with the
        // compilers whose runtime hooks are checked, the default global executor with any other.
        #if compiler(>=6.0) && compiler(<6.4)
            let executor = "Swift tasks run on the daemon's event loop thread"
        #else
            let executor = "Swift tasks run on the default global executor"
        #endif
        XCTAssertTrue(lines.contains { $0.contains("glucobridge.daemon: \(executor)") }, lines.joined(separator: "\n"))

        let queue = try DatabaseQueue(path: store.path)
        try queue.read { db in
            XCTAssertEqual(try String.fetchAll(db, sql: "PRAGMA integrity_check"), ["ok"])
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM glucose"), 23, "stored once")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT device_record_key) FROM glucose"), 23)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM import_run"), 2, "the corrupt capture wrote nothing")
            XCTAssertEqual(try Double.fetchOne(db, sql: "SELECT mgdl FROM glucose WHERE device_record_key = 'egv:11878'"), 224)
        }

        let stopped = try runProcess(BuiltProducts.executable("glucobridge"), ["status", "--store", store.path])
        XCTAssertTrue(stopped.stdout.split(separator: "\n")[1].hasPrefix("daemon: stopped "), stopped.stdout)
    }

    /// Bluetooth in the daemon: a btsnoop capture dropped into the spool is replayed like the
    /// sensor's own session, a cut-short one goes to failed/ with the record and byte at fault,
    /// and a `--ble` sensor, which cannot be reached on this machine, fails with one line, is
    /// logged and backed off, and shows in `status`.
    func testBluetoothCapturesAndSensors() throws {
        let folder = try Fixtures.temporaryDirectory()
        let spool = folder.appendingPathComponent("spool")
        let store = folder.appendingPathComponent("store.sqlite")
        // An age, so that the walk's heart rate counts as exercise.
        let profile = try runProcess(BuiltProducts.executable("glucobridge"), ["profile", "--age", "40", "--store", store.path, "--tz", "UTC"])
        XCTAssertEqual(profile.status, 0, profile.stderr)

        let log = folder.appendingPathComponent("daemon.log")
        let daemon = try startDaemon(
            [
                "--spool", spool.path, "--store", store.path, "--tz", "UTC", "--no-usb-hotplug",
                "--ble", "C0:FF:EE:00:00:01", "--ble-interval", "15",
            ],
            loggingTo: log)
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }

        let fixture = Fixtures.url("ble/hr-40min-walk.btsnoop")
        try FileManager.default.copyItem(at: fixture, to: spool.appendingPathComponent(".walk.part"))
        try FileManager.default.moveItem(at: spool.appendingPathComponent(".walk.part"), to: spool.appendingPathComponent("walk.log"))
        let corrupt = try Data(contentsOf: fixture).prefix(40_000)
        try corrupt.write(to: spool.appendingPathComponent("cut-short.btsnoop"))
        try waitFor(spool.appendingPathComponent("done/walk.log.report.txt"))
        try waitFor(spool.appendingPathComponent("failed/cut-short.btsnoop.reason.txt"))
        try FileManager.default.copyItem(at: fixture, to: spool.appendingPathComponent("again.btsnoop"))
        try waitFor(spool.appendingPathComponent("done/again.btsnoop.report.txt"))
        try waitFor("the sensor's first failure", in: log) { $0.contains("source not read; backing off") }

        let first = try String(contentsOf: spool.appendingPathComponent("done/walk.log.report.txt"), encoding: .utf8)
        // The same report the command line prints.
        XCTAssertTrue(
            first.contains(
                """
                device: C0:FF:EE:00:00:01, random; serial SIM-HR-0001; glucobridge simulator HR band
                services: Generic Access (0x1800), Device Information (0x180A), Heart Rate (0x180D)
                activity (ble:SIM-HR-0001 via ble-hrs): 3000 samples; 51 minutes: 51 new, 0 already stored; exercise sessions: 1 new, 0 already stored
                """), first)
        let again = try String(contentsOf: spool.appendingPathComponent("done/again.btsnoop.report.txt"), encoding: .utf8)
        XCTAssertTrue(
            again.contains(
                "activity (ble:SIM-HR-0001 via ble-hrs): 3000 samples; 51 minutes: 0 new, 51 already stored; exercise sessions: 0 new, 1 already stored"
            ),
            again)
        let reason = try String(contentsOf: spool.appendingPathComponent("failed/cut-short.btsnoop.reason.txt"), encoding: .utf8)
        XCTAssertTrue(
            reason.hasPrefix(
                "cut-short.btsnoop: record 995 at byte 39994: its record header needs 24 bytes but only 6 remain — the file is cut short\n"), reason)
        XCTAssertTrue(reason.contains("file: cut-short.btsnoop (40000 bytes), failed "), reason)
        XCTAssertEqual(try Data(contentsOf: spool.appendingPathComponent("failed/cut-short.btsnoop")), corrupt)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: spool.path).sorted(), ["done", "failed"])

        let noBluetooth = "this kernel has no Bluetooth support (socket: Address family not supported by protocol)"
        let status = try runProcess(BuiltProducts.executable("glucobridge"), ["status", "--store", store.path])
        XCTAssertEqual(status.status, 0, status.stderr)
        let statusLines = status.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(statusLines.contains("  spool: \(spool.path): 2 imported, 1 failed since start, 0 waiting"), status.stdout)
        XCTAssertTrue(statusLines.contains("  bluetooth: reading bluetooth C0:FF:EE:00:00:01 every 15 min"), status.stdout)
        XCTAssertTrue(
            statusLines.contains {
                $0.hasPrefix("  bluetooth C0:FF:EE:00:00:01: 0 read, 1 failed since start (1 in a row, backing off); next try ")
            }, status.stdout)
        XCTAssertTrue(statusLines.contains { $0.hasSuffix(" bluetooth C0:FF:EE:00:00:01: \(noBluetooth)") }, status.stdout)
        XCTAssertTrue(
            statusLines.contains {
                $0.hasPrefix("  ble SIM-HR-0001 (glucobridge simulator HR band): ")
                    && $0.hasSuffix(" replay-conversation from \(spool.path)/again.btsnoop: 3000 records read: 0 new, 51 already stored")
            }, status.stdout)

        try stop(daemon, with: SIGTERM)
        XCTAssertEqual(daemon.terminationReason, .exit)
        XCTAssertEqual(daemon.terminationStatus, 0)

        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        let all = lines.joined(separator: "\n")
        XCTAssertTrue(
            lines.contains {
                $0.contains(
                    "glucobridge.daemon: spool file imported activityMinutesAdded=51 activityMinutesAlreadyStored=0 address=C0:FF:EE:00:00:01 file=walk.log"
                )
                    && $0.contains("serial=SIM-HR-0001 source=ble-hrs")
            }, all)
        XCTAssertTrue(
            lines.contains { $0.contains("glucobridge.daemon: spool file failed error=\"cut-short.btsnoop: record 995 at byte 39994") }, all)
        let backOff = lines.filter { $0.contains("source not read; backing off") }
        XCTAssertEqual(backOff.count, 1, "retried after 30 s, not in a loop: \(all)")
        XCTAssertTrue(
            backOff[0].hasSuffix(
                "source not read; backing off error=\"\(noBluetooth)\" failures=1 polled=\"bluetooth C0:FF:EE:00:00:01\" retryIn=\"30.0 seconds\""),
            all)

        let queue = try DatabaseQueue(path: store.path)
        try queue.read { db in
            XCTAssertEqual(try String.fetchAll(db, sql: "PRAGMA integrity_check"), ["ok"])
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM activity_minute"), 51, "stored once")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM exercise"), 1, "one walk, stored once")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM import_run"), 2, "the corrupt capture and the sensor wrote nothing")
        }
    }

    /// Files already in the spool when the daemon starts are taken once settled; names used
    /// while writing are left alone.
    func testFilesWaitingAtStartUp() throws {
        let folder = try Fixtures.temporaryDirectory()
        let spool = folder.appendingPathComponent("spool")
        try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
        let waiting = spool.appendingPathComponent("yesterday.pcap")
        try FileManager.default.copyItem(at: Fixtures.url("dexcom/ecc1-g4-receiver.pcap"), to: waiting)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: waiting.path)
        let partial = spool.appendingPathComponent("upload.pcap.part")
        try Data(contentsOf: Fixtures.url("dexcom/ecc1-g4-receiver.pcap")).prefix(1000).write(to: partial)
        // Settled as long ago as the other: only its name keeps it out.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: partial.path)

        let daemon = Process()
        daemon.executableURL = BuiltProducts.executable("glucobridge")
        daemon.arguments = ["daemon", "--spool", spool.path, "--store", folder.appendingPathComponent("s.sqlite").path, "--no-usb-hotplug"]
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
        try waitFor(spool.appendingPathComponent("done/yesterday.pcap.report.txt"))
        try stop(daemon, with: SIGINT)
        XCTAssertEqual(daemon.terminationReason, .exit)
        XCTAssertEqual(daemon.terminationStatus, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: partial.path), "a file still being written is not taken")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: spool.appendingPathComponent("failed").path), [])
    }

    /// An import that runs past `--import-limit` is abandoned: nothing of it is stored, the file
    /// goes to failed/ saying why, and the files after it are still taken. A limit of 0 has
    /// passed before any import starts, so both files fail however fast or loaded the machine is
    /// (a small positive limit raced a warm replay, which can finish inside it).
    func testImportsPastTheirLimitAreAbandonedAndTheQueueGoesOn() throws {
        let folder = try Fixtures.temporaryDirectory()
        let spool = folder.appendingPathComponent("spool")
        let store = folder.appendingPathComponent("store.sqlite")
        let log = folder.appendingPathComponent("daemon.log")
        let daemon = try startDaemon(
            ["--spool", spool.path, "--store", store.path, "--no-usb-hotplug", "--import-limit", "0"], loggingTo: log)
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
        for name in ["first.pcap", "second.pcap"] {
            try FileManager.default.copyItem(at: Fixtures.url("dexcom/ecc1-g4-receiver.pcap"), to: spool.appendingPathComponent(name))
        }
        for name in ["first.pcap", "second.pcap"] {
            try waitFor(spool.appendingPathComponent("failed/\(name).reason.txt"))
            let reason = try String(contentsOf: spool.appendingPathComponent("failed/\(name).reason.txt"), encoding: .utf8)
            XCTAssertTrue(
                reason.hasPrefix("the import was not run: its time limit is 0 s (--import-limit 0 abandons every import); nothing of it was stored"),
                reason)
        }
        try stop(daemon, with: SIGTERM)
        let queue = try DatabaseQueue(path: store.path)
        try queue.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM glucose"), 0)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM import_run"), 0)
        }
    }

    /// Starts the built `glucobridge daemon` with `arguments`, its stderr written to `log`, and
    /// waits until it watches its spool folder (killing it if it never does).
    private func startDaemon(_ arguments: [String], loggingTo log: URL) throws -> Process {
        let daemon = try launchDaemon(arguments, loggingTo: log)
        do {
            try waitFor("the daemon to watch its spool", in: log) { $0.contains("watching the spool folder") }
        } catch {
            kill(daemon.processIdentifier, SIGKILL)
            throw error
        }
        return daemon
    }

    /// Sends `signal` and waits (bounded) for the daemon to exit.
    private func stop(_ daemon: Process, with signal: Int32, line: UInt = #line) throws {
        guard signalAndWait(daemon, signal, patience: patience) else {
            XCTFail("the daemon did not stop within \(patience) s of signal \(signal)", line: line)
            throw CancellationError()
        }
    }

    private func waitFor(_ file: URL, line: UInt = #line) throws {
        let deadline = Date().addingTimeInterval(patience)
        while !FileManager.default.fileExists(atPath: file.path) {
            guard Date() < deadline else {
                XCTFail("\(file.lastPathComponent) did not appear within \(patience) s", line: line)
                throw CancellationError()
            }
            usleep(50_000)
        }
    }

    private func waitFor(_ what: String, in log: URL, line: UInt = #line, _ condition: (String) -> Bool) throws {
        let deadline = Date().addingTimeInterval(patience)
        while !condition((try? String(contentsOf: log, encoding: .utf8)) ?? "") {
            guard Date() < deadline else {
                XCTFail("waited \(patience) s for \(what); log: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")", line: line)
                throw CancellationError()
            }
            usleep(50_000)
        }
    }
}
