import CaptureUSB
import Drivers
import Foundation
import Importer
import Store
import TestSupport
import Transport
import TransportReplay
import XCTest

@testable import Daemon

/// A reader that leaves (or a daemon that stops) in the middle of a download: the import stops
/// at its next transfer and nothing of it is written.
final class AbortTests: XCTestCase {
    func receiver() throws -> CapturedDevice {
        let capture = try USBCaptureReader.read(contentsOf: Fixtures.url("dexcom/ecc1-g4-receiver.pcap"))
        return try XCTUnwrap(CapturedDevice.devices(in: capture).first(where: \.hasDataTransfers))
    }

    func testReaderLeavingMidDownloadStoresNothing() throws {
        let folder = try Fixtures.temporaryDirectory()
        let store = try SharedStore(path: folder.appendingPathComponent("s.sqlite").path, timeZone: TimeZone(identifier: "UTC"))
        let importer = Importer(store: store)
        let abortSwitch = AbortSwitch()
        let replay = ReplayUSBTransport(try receiver())
        // The hotplug thread flips the switch when libusb reports the reader gone; here that
        // happens after the 6th transfer, in the middle of the page reads.
        let departing = TransferCounter(replay) { count in
            if count == 6 { abortSwitch.abort(.disconnected("22a3:0047 on bus 1 address 5")) }
        }
        XCTAssertThrowsError(
            try importer.importSession(
                over: AbortableTransport(departing, abortSwitch: abortSwitch), driver: DexcomDriver.self, origin: "test")
        ) { error in
            XCTAssertEqual("\(error)", "the device was disconnected during a transfer (22a3:0047 on bus 1 address 5)")
        }
        XCTAssertEqual(departing.count, 6, "no transfer after the switch")
        XCTAssertEqual(try store.importRuns(limit: 10), [])
        XCTAssertEqual(try store.glucose(), [])

        // Plugged in again: everything is read and stored once.
        let outcome = try importer.importSession(over: ReplayUSBTransport(try receiver()), driver: DexcomDriver.self, origin: "test")
        XCTAssertEqual(outcome.summary.added, 23)
        XCTAssertEqual(try store.glucose().count, 23)
    }

    /// A reader import past its time limit stops at its next transfer, storing nothing.
    func testAnImportPastItsLimitStoresNothing() throws {
        let folder = try Fixtures.temporaryDirectory()
        let store = try SharedStore(path: folder.appendingPathComponent("s.sqlite").path, timeZone: TimeZone(identifier: "UTC"))
        let abortSwitch = AbortSwitch()
        abortSwitch.startClock(limit: .zero)
        XCTAssertThrowsError(
            try Importer(store: store).importSession(
                over: AbortableTransport(ReplayUSBTransport(try receiver()), abortSwitch: abortSwitch), driver: DexcomDriver.self,
                origin: "test")
        ) { error in
            XCTAssertEqual("\(error)", "the import was not run: its time limit is 0 s (--import-limit 0 abandons every import); nothing of it was stored")
        }
        XCTAssertEqual(try store.glucose(), [])
        XCTAssertEqual(abortSwitch.abortError, .deadlinePassed(.zero))
    }

    func testSwitchKeepsTheFirstReason() {
        let abortSwitch = AbortSwitch()
        XCTAssertNil(abortSwitch.abortError)
        abortSwitch.abort(.disconnected("reader"))
        abortSwitch.abort(.noDevice)
        XCTAssertEqual(abortSwitch.abortError, .disconnected("reader"))
    }

    func testInFlightImportsAreOnePerLocation() {
        let inFlight = InFlightImports()
        let location = USBDeviceLocation(bus: 1, address: 5)
        let first = inFlight.begin(location)
        XCTAssertNotNil(first)
        XCTAssertNil(inFlight.begin(location), "libusb may report a device twice at start-up")
        XCTAssertTrue(inFlight.abort(location, with: .noDevice))
        XCTAssertEqual(first?.abortError, .noDevice)
        XCTAssertFalse(inFlight.abort(USBDeviceLocation(bus: 1, address: 6), with: .noDevice))
        inFlight.end(location)
        XCTAssertNotNil(inFlight.begin(location))
    }
}

/// Passes every call through to a real transport, counting bulk, interrupt and control transfers.
final class TransferCounter: USBTransport {
    let base: any USBTransport
    let onTransfer: (Int) -> Void
    private(set) var count = 0

    init(_ base: any USBTransport, onTransfer: @escaping (Int) -> Void) {
        self.base = base
        self.onTransfer = onTransfer
    }

    var device: USBDeviceDescription { base.device }
    func claimInterface(_ number: UInt8) throws(TransportError) { try base.claimInterface(number) }
    func write(_ bytes: [UInt8], to endpoint: USBEndpoint, timeout: Duration) throws(TransportError) {
        try base.write(bytes, to: endpoint, timeout: timeout)
        counted()
    }
    func read(from endpoint: USBEndpoint, maxLength: Int, timeout: Duration) throws(TransportError) -> USBRead {
        defer { counted() }
        return try base.read(from: endpoint, maxLength: maxLength, timeout: timeout)
    }
    func control(_ setup: USBControlSetup, data: [UInt8], timeout: Duration) throws(TransportError) -> USBRead {
        defer { counted() }
        return try base.control(setup, data: data, timeout: timeout)
    }
    func close() { base.close() }

    private func counted() {
        count += 1
        onTransfer(count)
    }
}

/// The queue every import goes through never runs two at once.
final class ImportQueueTests: XCTestCase {
    func testJobsNeverOverlap() async {
        let queue = ImportQueue()
        let log = Intervals()
        await withTaskGroup(of: Void.self) { group in
            for job in 0..<20 {
                group.addTask {
                    await queue.run {
                        log.record(job, .start)
                        usleep(2_000)
                        log.record(job, .end)
                    }
                }
            }
        }
        let events = log.events
        XCTAssertEqual(events.count, 40)
        for pair in stride(from: 0, to: events.count, by: 2) {
            XCTAssertEqual(events[pair].1, .start)
            XCTAssertEqual(events[pair + 1].1, .end)
            XCTAssertEqual(events[pair].0, events[pair + 1].0, "job \(events[pair].0) was interleaved with job \(events[pair + 1].0)")
        }
    }
}

final class Intervals: @unchecked Sendable {
    enum Edge { case start, end }
    private let lock = NSLock()
    private var recorded: [(Int, Edge)] = []

    func record(_ job: Int, _ edge: Edge) { lock.withLock { recorded.append((job, edge)) } }
    var events: [(Int, Edge)] { lock.withLock { recorded } }
}
