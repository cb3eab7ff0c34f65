import CaptureBluetooth
import Drivers
import Foundation
import ImportTestSupport
import Importer
import Logging
import ServiceLifecycle
import Store
import TestSupport
import Transport
import XCTest

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// Sources read on a schedule: the scheduling exercised with the one kind of source this machine
/// can read successfully (a recorded receiver session, replayed each time it is polled), and the
/// real Bluetooth source, which fails here because the kernel has no Bluetooth.
final class PolledSourceTests: XCTestCase {
    struct ReplayedSource: PolledSource {
        let name: String
        let interval: Duration
        let capture: URL

        func importSource() -> ImportSource { .capture(capture) }
        var limits: BLESessionLimits { .replay }
    }

    func testSourcesAreReadOnTheirScheduleAndFailuresAreRetried() async throws {
        let folder = try Fixtures.temporaryDirectory()
        let store = try SharedStore(path: folder.appendingPathComponent("s.sqlite").path, timeZone: TimeZone(identifier: "UTC"))
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let importer = Importer(store: store, logger: logger)
        let queue = ImportQueue()
        let state = StateFileWriter(
            storePath: store.path, initial: DaemonState(pid: 1, startedAt: Date(), spool: nil, usb: "-", bluetooth: "-"), logger: logger)
        let good = PolledSourceService(
            source: ReplayedSource(name: "receiver", interval: .milliseconds(20), capture: Fixtures.url("dexcom/ecc1-g4-receiver.pcap")),
            importer: importer, queue: queue, state: state, backOff: BackOff(), logger: logger)
        let missing = PolledSourceService(
            source: ReplayedSource(name: "band out of range", interval: .milliseconds(20), capture: folder.appendingPathComponent("none.pcap")),
            importer: importer, queue: queue, state: state, backOff: BackOff(base: .milliseconds(10), limit: .milliseconds(40)), logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [good, missing], logger: logger))

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                let runs = try store.importRuns(limit: 10).count
                let failures = await state.state.failures.count
                if runs >= 3, failures >= 3 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }

        let runs = try store.importRuns(limit: 100)
        XCTAssertGreaterThanOrEqual(runs.count, 3, "the source was read again on its schedule")
        XCTAssertEqual(runs.last?.added, 23)
        XCTAssertEqual(runs.dropLast().map(\.added), Array(repeating: 0, count: runs.count - 1), "later reads add nothing")
        XCTAssertEqual(try store.glucose().count, 23)
        let failures = await state.state.failures
        XCTAssertGreaterThanOrEqual(failures.count, 3, "a failing source is tried again")
        XCTAssertEqual(Set(failures.map(\.what)), ["band out of range"])
        XCTAssertTrue(failures[0].error.contains("none.pcap"), failures[0].error)
    }

    /// `BluetoothSource` calls the real `importBLE`; on this machine every read fails with the
    /// kernel's one line. The service logs each failure, records it in the status, waits longer
    /// after each (10, 20, 40, 40 ms here) and stops cleanly.
    func testBluetoothSourceFailsHereAndBacksOff() async throws {
        try requireNoBluetoothKernel()
        let folder = try Fixtures.temporaryDirectory()
        let store = try SharedStore(path: folder.appendingPathComponent("s.sqlite").path, timeZone: TimeZone(identifier: "UTC"))
        let lines = LogLines()
        let logger = Logger(label: "test") { _ in lines }
        let state = StateFileWriter(
            storePath: store.path, initial: DaemonState(pid: 1, startedAt: Date(), spool: nil, usb: "-", bluetooth: "-"), logger: logger)
        let sensor = BluetoothSource(
            peer: BLEPeer(address: BluetoothAddress("C0:FF:EE:00:00:01")!, addressType: .random), interval: .seconds(3600), listenMinutes: 1)
        XCTAssertEqual(sensor.name, "bluetooth C0:FF:EE:00:00:01")
        let service = PolledSourceService(
            source: sensor, importer: Importer(store: store, logger: logger), queue: ImportQueue(), state: state,
            backOff: BackOff(base: .milliseconds(10), limit: .milliseconds(40)), logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [service], logger: logger))

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, await (state.state.polled?.first?.failed ?? 0) < 4 {
                try await Task.sleep(for: .milliseconds(10))
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }

        let noBluetooth = "this kernel has no Bluetooth support (socket: Address family not supported by protocol)"
        let recorded = await state.state
        let status = try XCTUnwrap(recorded.polled?.first)
        XCTAssertEqual(recorded.polled?.count, 1)
        XCTAssertEqual(status.name, "bluetooth C0:FF:EE:00:00:01")
        XCTAssertGreaterThanOrEqual(status.failed, 4)
        XCTAssertEqual(status.failuresInARow, status.failed)
        XCTAssertEqual(status.read, 0)
        XCTAssertNil(status.lastRead)
        XCTAssertEqual(recorded.failures.count, status.failed, "each failure is recorded")
        XCTAssertEqual(Set(recorded.failures.map(\.what)), ["bluetooth C0:FF:EE:00:00:01"])
        XCTAssertEqual(Set(recorded.failures.map(\.error)), [noBluetooth], "one plain line, the kernel's reason")
        XCTAssertEqual(try store.importRuns(limit: 10).count, 0, "nothing written")

        let warnings = lines.all.filter { $0.message == "source not read; backing off" }
        XCTAssertEqual(warnings.count, status.failed, "one log line per failed read")
        XCTAssertEqual(Array(warnings.prefix(4).map { $0.metadata["retryIn"] }), ["0.01 seconds", "0.02 seconds", "0.04 seconds", "0.04 seconds"])
        XCTAssertEqual(warnings.first?.metadata["error"], noBluetooth)
        XCTAssertEqual(warnings.first?.metadata["polled"], "bluetooth C0:FF:EE:00:00:01")

        let shown = StatusReport.daemonLines(recorded)
        XCTAssertTrue(
            shown.contains(
                "  bluetooth C0:FF:EE:00:00:01: 0 read, \(status.failed) failed since start (\(status.failed) in a row, backing off); next try \(StatusReport.timestamp(status.nextAttempt!))"
            ), shown.joined(separator: "\n"))
        XCTAssertTrue(shown.contains { $0.hasSuffix(" bluetooth C0:FF:EE:00:00:01: \(noBluetooth)") }, shown.joined(separator: "\n"))
    }

    func requireNoBluetoothKernel() throws {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_SEQPACKET.rawValue), 0)
        let code = errno
        if fd >= 0 { _ = close(fd) }
        guard fd < 0, code == EAFNOSUPPORT else { throw XCTSkip("this machine has Bluetooth; the no-support path is not reachable here") }
    }
}

/// The log lines a test's logger received: message and metadata, as strings.
final class LogLines: LogHandler, @unchecked Sendable {
    struct Line {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let lock = NSLock()
    private var lines: [Line] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var all: [Line] { lock.withLock { lines } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let line = Line(
            level: event.level, message: "\(event.message)", metadata: (event.metadata ?? [:]).mapValues { "\($0)" })
        lock.withLock { lines.append(line) }
    }
}
