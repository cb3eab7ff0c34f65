import CaptureBluetooth
import Foundation
import GRDB
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
        let outcome = try Importer(store: store).replay(captureAt: Fixtures.url("lab/dexcom-g4-tcpdump-usbmon1.pcap"))
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
        let outcome = try Importer(store: store).replay(captureAt: Fixtures.url("lab/ecc1-g4-receiver-bulk-as-interrupt.pcap"))
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
        XCTAssertEqual(Set(capture.connections.filter { !$0.att.isEmpty }.map(\.role.rawValue)), [LERole.central.rawValue, LERole.peripheral.rawValue])
        XCTAssertEqual(capture.attConnections.map(\.role), [.central])
        XCTAssertEqual(capture.attConnections.first?.controllerIndex, 0)

        let (store, _) = try makeStore(zone: "UTC")
        let outcome = try Importer(store: store).replayBLE(captureAt: url)
        XCTAssertEqual(outcome.identity.serial, HeartRateBandDemo.serial)
        XCTAssertEqual(outcome.activity?.summary.samplesRead, 30)
    }
}
