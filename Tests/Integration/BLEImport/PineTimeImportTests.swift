import Drivers
import Foundation
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import Transport
import XCTest

/// A PineTime read by the whole import: the simulated watch (Berlin, two hours ahead of UTC in
/// May) read three times, through a restart of the watch and its midnight; the steps per minute
/// and heart rate stored, the cursors, the watch's clock kept with the import.
final class PineTimeImportTests: XCTestCase {
    private func store() throws -> SharedStore {
        let store = try freshStore(zone: "Europe/Berlin")
        try store.setUserProfile(UserProfile(age: 40))
        return store
    }

    @discardableResult
    private func read(_ watch: PineTimeSimulator, at connected: Date, into store: SharedStore, recordTo: URL? = nil) throws -> DeviceImport {
        let clock = SimulatedClock(connected)
        let peripheral = watch.peripheral(connected: connected, clock: clock)
        let context = ImportContext(recordTo: recordTo, recordingClock: { clock.now }, limits: .replay)
        return try Importer(store: store).run(.bluetooth(ConnectedPeer(peripheral, origin: "simulated watch")), context: context).devices[0]
    }

    private func steps(_ store: SharedStore) throws -> [Date: Double] {
        Dictionary(uniqueKeysWithValues: try store.activityMinutes().compactMap { row in row.minute.stepCadence.map { (row.minute.start, $0) } })
    }

    func testReadsThroughARestartAndMidnightStoreEveryStepOnce() throws {
        let store = try store()
        // 14:00:05 on the watch: 5230 steps, then 11 notifications to 5329 at 12:03:50Z.
        let first = try read(PineTimeDemo.watch(notifications: 11), at: PineTimeDemo.connected, into: store)
        XCTAssertEqual(first.problems, [])
        XCTAssertEqual(first.activity?.source.family, "ble")
        XCTAssertEqual(first.activity?.services, ["ble-hrs", "infinitime"])
        var stored = try steps(store)
        // From the watch's midnight (22:00Z) to 12:03Z: the count of the last read in 12:00 (5248)
        // over 841 minutes, then 27 steps in each of 12:01–12:03.
        XCTAssertEqual(stored.count, 844)
        XCTAssertEqual(stored.values.reduce(0, +), 5329)
        XCTAssertEqual(stored[instant("2024-04-30T22:00:00Z")], 6)
        XCTAssertEqual(stored[instant("2024-05-01T12:00:00Z")], 7)
        XCTAssertEqual(stored[instant("2024-05-01T12:02:00Z")], 27)
        let walk = try XCTUnwrap(try store.activityMinutes().first { $0.minute.start == instant("2024-05-01T12:02:00Z") })
        // Heart rate notifications at 12:02:00, :20 and :40: 98, 99 and 100 bpm.
        XCTAssertEqual(walk.minute.heartRate, 99)
        XCTAssertEqual(
            try storeContent(store, [.cursors]),
            ["\"ble\" | \"steps\" | \(28_576_083 << 32 | 5329)", "\"ble\" | \"steps-day\" | 19844"])
        // The watch's clock is kept beside the host's.
        let run = try XCTUnwrap(try storeContent(store, [.importRuns]).first)
        XCTAssertTrue(run.contains("\"2024-05-01 14:00:05.000\""), run)
        XCTAssertTrue(run.contains("\"host-anchored\""), run)

        // The same session again adds nothing.
        let before = try storeContent(store, [.activityMinutes, .cursors])
        try read(PineTimeDemo.watch(notifications: 11), at: PineTimeDemo.connected, into: store)
        XCTAssertEqual(try storeContent(store, [.activityMinutes, .cursors]), before)

        // Two hours later the watch has restarted: 120 steps since, over 12:04–14:00Z.
        let restarted = try read(PineTimeDemo.watch(notifications: 0, steps: 120), at: instant("2024-05-01T14:00:05Z"), into: store)
        XCTAssertTrue(restarted.activity?.notes.contains { $0.contains("went down from 5329 to 120") } ?? false)
        stored = try steps(store)
        XCTAssertEqual(stored.values.reduce(0, +), 5329 + 120)
        XCTAssertEqual(stored[instant("2024-05-01T12:04:00Z")], 1)
        XCTAssertEqual(stored[instant("2024-05-01T14:00:00Z")], 2)
        XCTAssertTrue(stored.values.allSatisfy { $0 >= 0 })

        // 00:30 on the watch the next day: 300 steps since its midnight, over 22:00–22:30Z.
        try read(PineTimeDemo.watch(notifications: 0, steps: 300), at: instant("2024-05-01T22:30:05Z"), into: store)
        stored = try steps(store)
        XCTAssertEqual(stored.values.reduce(0, +), 5329 + 120 + 300)
        XCTAssertEqual(stored.keys.filter { $0 >= instant("2024-05-01T22:00:00Z") }.count, 31)
        XCTAssertNil(stored[instant("2024-05-01T21:59:00Z")])
        XCTAssertEqual(try storeContent(store, [.cursors]).last, "\"ble\" | \"steps-day\" | 19845")
    }

    func testTheRecordingReplaysToTheSameRows() throws {
        let folder = try Fixtures.temporaryDirectory()
        let recording = folder.appendingPathComponent("pinetime.btsnoop")
        let live = try store()
        try read(PineTimeDemo.watch(notifications: 6), at: PineTimeDemo.connected, into: live, recordTo: recording)
        let replayed = try store()
        let outcome = try Importer(store: replayed).run(.capture(recording)).devices
        XCTAssertEqual(outcome.map(\.replayMode), [.conversation])
        XCTAssertEqual(try storeContent(replayed, [.activityMinutes, .cursors]), try storeContent(live, [.activityMinutes, .cursors]))
        // Replayed into the live store, the same reads add nothing.
        let before = try storeContent(live, [.activityMinutes, .cursors])
        _ = try Importer(store: live).run(.capture(recording))
        XCTAssertEqual(try storeContent(live, [.activityMinutes, .cursors]), before)
    }

    func testAWatchWithoutItsClockStoresNoSteps() throws {
        let store = try store()
        let watch = PineTimeDemo.watch(notifications: 2)
        let clock = SimulatedClock(PineTimeDemo.connected)
        let peripheral = watch.peripheral(connected: PineTimeDemo.connected, clock: clock)
        peripheral.refusals[InfiniTimeUUID.currentTime] = .readNotPermitted
        let outcome = try Importer(store: store)
            .run(.bluetooth(ConnectedPeer(peripheral, origin: "simulated watch")), context: ImportContext(limits: .replay)).devices[0]
        XCTAssertEqual(try steps(store), [:])
        XCTAssertEqual(outcome.activity?.events.first { $0.name == "steps-without-watch-time" }?.count, 3)
    }
}
