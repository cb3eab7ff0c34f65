import Foundation
import Importer
import Logging
import ServiceLifecycle
import Store
import TestSupport
import XCTest

@testable import Daemon

/// The extension point Bluetooth sources will use, exercised with the one kind of source this
/// machine can read: a recorded receiver session, replayed each time it is polled.
final class PolledSourceTests: XCTestCase {
    struct ReplayedSource: PolledSource {
        let name: String
        let interval: Duration
        let capture: URL

        func importNow(with importer: Importer) throws -> ImportOutcome {
            try importer.replay(captureAt: capture)
        }
    }

    func testSourcesAreReadOnTheirScheduleAndFailuresAreRetried() async throws {
        let folder = try Fixtures.temporaryDirectory()
        let store = try SharedStore(path: folder.appendingPathComponent("s.sqlite").path, timeZone: TimeZone(identifier: "UTC"))
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let importer = Importer(store: store, logger: logger)
        let queue = ImportQueue()
        let state = StateRecorder(
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
}
