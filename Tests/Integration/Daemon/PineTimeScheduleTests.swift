import Drivers
import Foundation
import ImportTestSupport
import Importer
import Logging
import ServiceLifecycle
import Simulators
import Store
import TestSupport
import Transport
import XCTest

@testable import Daemon

/// A PineTime read by the daemon on its Bluetooth schedule: each poll connects to the simulated
/// watch as it is at that read (14:00 on the watch, then restarted two hours later, then after
/// its midnight, then the same read again), and the store holds every step once.
final class PineTimeScheduleTests: XCTestCase {
    /// The watch at each read: when it is read and its count; the last read is served again.
    final class WatchReads: BluetoothConnecting, @unchecked Sendable {
        private let lock = NSLock()
        private var next = 0
        let reads: [(at: Date, steps: UInt32, notifications: Int)]

        init(_ reads: [(at: Date, steps: UInt32, notifications: Int)]) {
            self.reads = reads
        }

        func connect() throws(ImportError) -> ConnectedPeer {
            let read = lock.withLock {
                defer { next = min(next + 1, reads.count - 1) }
                return reads[next]
            }
            let clock = SimulatedClock(read.at)
            let watch = PineTimeDemo.watch(notifications: read.notifications, steps: read.steps)
            return ConnectedPeer(watch.peripheral(connected: read.at, clock: clock), origin: "simulated PineTime")
        }
    }

    struct WatchSource: PolledSource {
        let watch: WatchReads
        var name: String { "bluetooth \(PineTimeDemo.peer.address)" }
        var interval: Duration { .milliseconds(20) }
        func importSource() -> ImportSource { .bluetooth(watch) }
        var limits: BLESessionLimits { .replay }
    }

    func testTheDaemonStoresEachReadAsStepsSinceTheLast() async throws {
        let folder = try Fixtures.temporaryDirectory()
        let store = try SharedStore(path: folder.appendingPathComponent("s.sqlite").path, timeZone: TimeZone(identifier: "Europe/Berlin")!)
        try store.setUserProfile(UserProfile(age: 40))
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let state = StateFileWriter(
            storePath: store.path, initial: DaemonState(pid: 1, startedAt: Date(), spool: nil, usb: "-", bluetooth: "-"), logger: logger)
        let reads = WatchReads([
            (PineTimeDemo.connected, 5230, 11), (instant("2024-05-01T14:00:05Z"), 120, 0), (instant("2024-05-01T22:30:05Z"), 300, 0),
        ])
        let service = PolledSourceService(
            source: WatchSource(watch: reads), importer: Importer(store: store, logger: logger), queue: ImportQueue(), state: state,
            backOff: BackOff(), logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [service], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, try store.importRuns(limit: 10).count < 4 {
                try await Task.sleep(for: .milliseconds(20))
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }

        let runs = try store.importRuns(limit: 100)
        XCTAssertGreaterThanOrEqual(runs.count, 4)
        XCTAssertEqual(runs.dropLast(3).map(\.added), Array(repeating: 0, count: runs.count - 3), "the same read again adds nothing (newest first)")
        let steps = try store.activityMinutes().compactMap(\.minute.stepCadence)
        XCTAssertEqual(steps.reduce(0, +), 5329 + 120 + 300, "every step once: the restart counted from 0, the new day from midnight")
        XCTAssertTrue(steps.allSatisfy { $0 >= 0 })
        let failures = await state.state.failures
        XCTAssertEqual(failures.count, 0, "\(failures)")
    }
}
