import CaptureUSB
import Drivers
import Foundation
import ImportTestSupport
import Importer
import Simulators
import Store
import TestSupport
import Transport
import TransportReplay
import XCTest

@testable import Daemon

/// A reader that leaves (or a daemon that stops) in the middle of a download: the import stops
/// at its next transfer or PDU, whatever the bus, and nothing of it is written.
final class CancellationTests: XCTestCase {
    func receiver() throws -> RecordedUSBDevice {
        let capture = try USBCaptureReader.read(contentsOf: Fixtures.url("dexcom/ecc1-g4-receiver.pcap"))
        return try XCTUnwrap(RecordedUSBDevice.devices(in: capture).first(where: \.hasDataTransfers))
    }

    func testReaderLeavingMidDownloadStoresNothing() throws {
        let folder = try Fixtures.temporaryDirectory()
        let store = try SharedStore(path: folder.appendingPathComponent("s.sqlite").path, timeZone: TimeZone(identifier: "UTC"))
        let importer = Importer(store: store)
        let cancellation = ImportCancellation()
        let replay = ReplayUSBTransport(try receiver())
        // The hotplug thread cancels the import when libusb reports the reader gone; here that
        // happens after the 6th transfer, in the middle of the page reads.
        let departing = TransferCounter(replay) { count in
            if count == 6 { cancellation.cancel(.transport(.disconnected("22a3:0047 on bus 1 address 5"))) }
        }
        XCTAssertThrowsError(
            try importer.importOne(over: departing, driver: DexcomDriver.self, origin: "test", cancellation: cancellation)
        ) { error in
            XCTAssertEqual("\(error)", "the device was disconnected during a transfer (22a3:0047 on bus 1 address 5)")
        }
        XCTAssertEqual(departing.count, 6, "no transfer after the cancellation")
        XCTAssertEqual(try store.importRuns(limit: 10), [])
        XCTAssertEqual(try store.glucose(), [])

        // Plugged in again: everything is read and stored once.
        let outcome = try importer.importOne(over: ReplayUSBTransport(try receiver()), driver: DexcomDriver.self, origin: "test")
        XCTAssertEqual(outcome.summary.added, 23)
        XCTAssertEqual(try store.glucose().count, 23)
    }

    /// A reader import past its time limit stops at its next transfer, storing nothing.
    func testAnImportPastItsLimitStoresNothing() throws {
        let folder = try Fixtures.temporaryDirectory()
        let store = try SharedStore(path: folder.appendingPathComponent("s.sqlite").path, timeZone: TimeZone(identifier: "UTC"))
        let cancellation = ImportCancellation()
        cancellation.startClock(limit: .zero)
        XCTAssertThrowsError(
            try Importer(store: store).importOne(
                over: ReplayUSBTransport(try receiver()), driver: DexcomDriver.self, origin: "test", cancellation: cancellation)
        ) { error in
            XCTAssertEqual(
                "\(error)", "the import was not run: its time limit is 0 s (--import-limit 0 abandons every import); nothing of it was stored")
        }
        XCTAssertEqual(try store.glucose(), [])
    }

    /// The daemon stopping while a Bluetooth band is listened to: the session stops at its next
    /// PDU, nothing of it is stored, and the error says why; the next read stores it whole.
    func testStoppingDuringABluetoothSessionStoresNothing() throws {
        let folder = try Fixtures.temporaryDirectory()
        let store = try SharedStore(path: folder.appendingPathComponent("s.sqlite").path, timeZone: TimeZone(identifier: "UTC"))
        let importer = Importer(store: store)
        let cancellation = ImportCancellation()
        let band = PDUCounter(HeartRateBandDemo.band(clock: SimulatedClock(HeartRateBandDemo.connected))) { count in
            if count == 40 { cancellation.cancel(.cancelled(.stopping(abandoned: "the read of the band"))) }
        }
        XCTAssertThrowsError(try importer.importOneBLE(over: band, origin: "simulated band", cancellation: cancellation)) { error in
            XCTAssertEqual("\(error)", "glucobridge is stopping; the read of the band was abandoned before anything was written")
        }
        XCTAssertEqual(band.count, 40, "no PDU after the cancellation")
        XCTAssertEqual(try store.importRuns(limit: 10), [])
        XCTAssertEqual(try store.activityMinutes().count, 0)

        let outcome = try importer.importOneBLE(
            over: HeartRateBandDemo.band(clock: SimulatedClock(HeartRateBandDemo.connected)), origin: "simulated band")
        XCTAssertEqual(outcome.activity?.summary.samplesRead, HeartRateBandDemo.seconds)
    }

    func testCancellationKeepsTheFirstReason() {
        let cancellation = ImportCancellation()
        XCTAssertNil(cancellation.reason)
        cancellation.cancel(.transport(.disconnected("reader")))
        cancellation.cancel(.transport(.noDevice))
        XCTAssertEqual("\(cancellation.reason.map { "\($0)" } ?? "none")", "\(ImportError.transport(.disconnected("reader")))")
    }

    func testInFlightImportsAreOnePerLocation() {
        let inFlight = InFlightImports()
        let location = USBDeviceLocation(bus: 1, address: 5)
        let first = inFlight.begin(location)
        XCTAssertNotNil(first)
        XCTAssertNil(inFlight.begin(location), "libusb may report a device twice at start-up")
        XCTAssertTrue(inFlight.cancel(location, with: .transport(.noDevice)))
        XCTAssertEqual(first?.reason.map { "\($0)" }, "\(ImportError.transport(.noDevice))")
        XCTAssertFalse(inFlight.cancel(USBDeviceLocation(bus: 1, address: 6), with: .transport(.noDevice)))
        inFlight.end(location)
        XCTAssertNotNil(inFlight.begin(location))
    }
}

/// Passes every PDU through to a real bearer, counting those received.
final class PDUCounter: ATTBearer {
    let base: any ATTBearer
    let onPDU: (Int) -> Void
    private(set) var count = 0

    init(_ base: any ATTBearer, onPDU: @escaping (Int) -> Void) {
        self.base = base
        self.onPDU = onPDU
    }

    var peer: BLEPeer { base.peer }
    var connectionHandle: UInt16? { base.connectionHandle }
    func send(_ pdu: [UInt8]) throws(BLEError) { try base.send(pdu) }
    func receive(timeout: Duration) throws(BLEError) -> ATTBearerPDU? {
        guard let pdu = try base.receive(timeout: timeout) else { return nil }
        count += 1
        onPDU(count)
        return pdu
    }
    func raiseSecurity(after error: ATTErrorCode) throws(BLEError) -> Bool { try base.raiseSecurity(after: error) }
    func close() { base.close() }
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
