import CaptureBluetooth
import Drivers
import Foundation
import GRDB
import ImportTestSupport
import Importer
import Simulators
import Store
import TestSupport
import Transport
import XCTest

/// Captures a user makes of live sessions, made in the device lab (Lab/, see fixtures/lab/
/// PROVENANCE.md): a real kernel's usbmon and btmon wrote them, not glucobridge.
final class LabCaptureReplayTests: XCTestCase {
    /// `tcpdump -i usbmon1` during a live import of a simulated G4 receiver holding one Day: the
    /// descriptors the kernel fetched describe the data interface's endpoints as bulk
    /// (bmAttributes 2), which replay reads as the USB specification numbers them.
    func testATcpdumpCaptureOfALiveDexcomImportReplays() throws {
        let (store, _) = try makeStore(zone: "UTC")
        let outcome = try Importer(store: store).replayOne(captureAt: Fixtures.url("lab/dexcom-g4-tcpdump-usbmon1.pcap"))
        XCTAssertEqual(outcome.replayMode, .conversation)
        XCTAssertEqual(outcome.source, DeviceSource(family: "dexcom", serial: "SMLAB0002", model: "G4Receiver"))
        XCTAssertEqual(outcome.summary.added, 288)
        let values = try store.database.read { db in
            try Double.fetchAll(db, sql: "SELECT mgdl FROM glucose ORDER BY device_time")
        }
        XCTAssertEqual(values, (0..<288).map { Double(GeneratedHistory.glucose(at: $0)!) })
    }

    /// A recording made by glucobridge before its endpoint descriptors followed the USB
    /// specification (bulk written as 3, interrupt's number) still replays.
    func testAnOlderRecordingWithItsBulkPairDescribedAsInterruptReplays() throws {
        let (store, _) = try makeStore(zone: "America/New_York")
        let outcome = try Importer(store: store).replayOne(captureAt: Fixtures.url("lab/ecc1-g4-receiver-bulk-as-interrupt.pcap"))
        XCTAssertEqual(outcome.summary.added, 23)
    }

    /// The endpoint descriptors glucobridge writes into recordings: bulk is 2 and interrupt 3
    /// (USB 2.0 table 9-13), and they read back as written.
    func testRecordedEndpointDescriptorsUseTheSpecificationsTransferTypes() {
        let device = DexcomReceiverSimulator(pages: [:], systemTime: 0, displayTimeOffset: 0, hostClock: { Date() }).device
        let bytes = USBDescriptors.configurationDescriptor(for: device)
        var attributes: [UInt8: UInt8] = [:]
        var offset = 0
        while offset + 1 < bytes.count {
            if bytes[offset + 1] == USBDescriptors.endpointType { attributes[bytes[offset + 2]] = bytes[offset + 3] }
            offset += Int(bytes[offset])
        }
        XCTAssertEqual(attributes, [0x81: 3, 0x02: 2, 0x83: 2])
        XCTAssertEqual(USBDescriptors.interfaces(fromConfigurationDescriptor: bytes), device.interfaces)
    }

    /// `btmon -w` without `-i` on a machine with two controllers holds both ends of the link:
    /// the central's connection on hci0 and the peripheral's on hci1. Replay takes the central's.
    func testABtmonCaptureHoldingBothEndsOfTheLinkReplaysTheCentralsSide() throws {
        let url = Fixtures.url("lab/hr-band-btmon-both-ends.btsnoop")
        let capture = try LECapture.read(contentsOf: url)
        XCTAssertEqual(
            Set(capture.connections.filter { !$0.att.isEmpty }.map(\.role.rawValue)), [LERole.central.rawValue, LERole.peripheral.rawValue])
        XCTAssertEqual(capture.attConnections.map(\.role), [.central])
        XCTAssertEqual(capture.attConnections.first?.controllerIndex, 0)

        let (store, _) = try makeStore(zone: "UTC")
        let outcome = try Importer(store: store).replayOneBLE(captureAt: url)
        XCTAssertEqual(outcome.identity?.serial, HeartRateBandDemo.serial)
        XCTAssertEqual(outcome.activity?.summary.samplesRead, 30)
    }
}

/// A reader that stops answering after `answers` reads, as the lab's silent gadget does.
private final class FallsSilent: USBTransport {
    let base: any USBTransport
    var answers: Int

    init(_ base: any USBTransport, after answers: Int) {
        self.base = base
        self.answers = answers
    }

    var device: USBDeviceDescription { base.device }
    func claimInterface(_ number: UInt8) throws(TransportError) { try base.claimInterface(number) }
    func write(_ bytes: [UInt8], to endpoint: USBEndpoint, timeout: Duration) throws(TransportError) {
        try base.write(bytes, to: endpoint, timeout: timeout)
    }
    func read(from endpoint: USBEndpoint, maxLength: Int, timeout: Duration) throws(TransportError) -> USBRead {
        guard answers > 0 else { throw .timeout(endpoint: endpoint.address) }
        answers -= 1
        return try base.read(from: endpoint, maxLength: maxLength, timeout: timeout)
    }
    func control(_ setup: USBControlSetup, data: [UInt8], timeout: Duration) throws(TransportError) -> USBRead {
        try base.control(setup, data: data, timeout: timeout)
    }
    func close() { base.close() }
}

final class LiveTransferErrorTests: XCTestCase {
    /// A live reader that stops answering mid-download: the error names the device as the import
    /// names it, and says what happened; nothing is stored.
    func testATimeoutNamesTheDevice() throws {
        let (store, _) = try makeStore(zone: "UTC")
        let receiver = GeneratedHistory.receiver(days: 1, serial: "SMLAB0003", hostClock: { Date() })
        do {
            _ = try Importer(store: store).importOne(
                over: FallsSilent(receiver, after: 5), driver: DexcomDriver.self, origin: "usb 22a3:0047 on bus 1 address 7")
            XCTFail("the import succeeded")
        } catch {
            XCTAssertEqual("\(error)", "reading usb 22a3:0047 on bus 1 address 7: USB transfer on endpoint 0x83 timed out")
        }
        XCTAssertEqual(try tableCounts(store)["glucose"], 0)
    }
}
