import CaptureUSB
import Foundation
import TestSupport
import Transport
import XCTest

@testable import Transport
@testable import TransportReplay

/// HID devices on the replay and recording transports: reports sent by SET_REPORT (no OUT
/// endpoint) or to an interrupt OUT endpoint, answers read from interrupt IN.
final class HIDReplayTests: XCTestCase {
    /// A reader like the FreeStyle InsuLinx: one HID interface, interrupt IN 0x81 only.
    let inOnly = USBDeviceDescription(
        vendorID: 0x1A61, productID: 0x3450, bus: 2, address: 9,
        interfaces: [
            USBInterface(
                number: 0, interfaceClass: USBInterface.classHID, interfaceSubclass: 0, interfaceProtocol: 0,
                endpoints: [USBEndpoint(address: 0x81, type: .interrupt, maxPacketSize: 64)])
        ])

    func report(_ bytes: [UInt8]) -> [UInt8] { bytes + [UInt8](repeating: 0, count: 64 - bytes.count) }

    /// Writes a usbmon pcap of `device`: its descriptors, then each SET_REPORT with the interrupt
    /// IN reports that answered it.
    func pcap(of device: USBDeviceDescription, exchanges: [([UInt8], [[UInt8]])]) throws -> URL {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("hid.pcap")
        let writer = try UsbmonPcapWriter(url: url, bus: device.bus, device: device.address)
        var time = Date(timeIntervalSince1970: 1_700_000_000)
        func next() -> Date {
            time = time.addingTimeInterval(0.002)
            return time
        }
        let config = USBDescriptors.configurationDescriptor(for: device)
        for (setup, data) in [
            (USBDescriptors.getDeviceDescriptor, USBDescriptors.deviceDescriptor(for: device)),
            (USBDescriptors.getConfigurationDescriptor(length: UInt16(config.count)), config),
        ] {
            try writer.append(
                USBTransfer(packetNumber: 0, endpoint: 0x80, type: .control, direction: .in, setup: setup.bytes, data: data),
                submittedAt: next(), completedAt: next())
        }
        for (request, answers) in exchanges {
            let setup = HIDChannel.setReport(interface: 0, length: 64)
            try writer.append(
                USBTransfer(packetNumber: 0, endpoint: 0x00, type: .control, direction: .out, setup: setup.bytes, data: report(request)),
                submittedAt: next(), completedAt: next())
            for answer in answers {
                try writer.append(
                    USBTransfer(packetNumber: 0, endpoint: 0x81, type: .interrupt, direction: .in, data: report(answer)),
                    submittedAt: next(), completedAt: next())
            }
        }
        try writer.close()
        return url
    }

    func testSetReportsInAUsbmonCaptureAreRequests() throws {
        let url = try pcap(
            of: inOnly, exchanges: [([0x04, 0x00], [[0x34, 0x01, 0x0C]]), ([0x05, 0x00], [[0x22, 0x01, 0x03], [0x06, 0x02, 0x41, 0x00]])])
        let capture = try USBCaptureReader.read(contentsOf: url)
        let device = try XCTUnwrap(RecordedUSBDevice.devices(in: capture).first)
        XCTAssertTrue(device.hasDescriptors)
        XCTAssertEqual(device.description.idString, "1a61:3450")
        XCTAssertEqual(device.conversation.count, 5)
        XCTAssertEqual(device.exchanges.map { $0.request.type }, [.control, .control])
        XCTAssertEqual(device.exchanges.map { $0.replies.count }, [1, 2])
        XCTAssertEqual(Array(device.exchanges[1].request.data.prefix(2)), [0x05, 0x00])

        let replay = ReplayUSBTransport(device)
        let channel = try XCTUnwrap(HIDChannel(transport: replay))
        XCTAssertNil(channel.outEndpoint, "the InsuLinx has no OUT endpoint: reports go by SET_REPORT")
        try channel.claim()
        XCTAssertEqual(replay.claimedInterfaces, [0])
        // Asked out of order: each request finds its own answers.
        try channel.send(report([0x05, 0x00]), timeout: .seconds(1))
        XCTAssertEqual(Array(try channel.receive(maxLength: 64, timeout: .seconds(1)).bytes.prefix(3)), [0x22, 0x01, 0x03])
        let serial = try channel.receive(maxLength: 64, timeout: .seconds(1))
        XCTAssertEqual(Array(serial.bytes.prefix(4)), [0x06, 0x02, 0x41, 0x00])
        XCTAssertNotNil(serial.hostTime)
        XCTAssertThrowsError(try channel.receive(maxLength: 64, timeout: .seconds(1))) {
            XCTAssertEqual($0 as? TransportError, .timeout(endpoint: 0x81))
        }
        try channel.send(report([0x04, 0x00]), timeout: .seconds(1))
        XCTAssertEqual(Array(try channel.receive(maxLength: 64, timeout: .seconds(1)).bytes.prefix(3)), [0x34, 0x01, 0x0C])
        // Each recorded answer is served once: asking again finds the capture used up.
        XCTAssertThrowsError(try channel.send(report([0x05, 0x00]), timeout: .seconds(1))) {
            XCTAssertEqual($0 as? TransportError, .captureExhausted(afterPacket: 5))
        }
        // A report the capture never carried.
        XCTAssertThrowsError(try channel.send(report([0x15, 0x00]), timeout: .seconds(1))) { error in
            guard case .requestNotInCapture(let request, _) = error as? TransportError else { return XCTFail("\(error)") }
            XCTAssertEqual(Array(request.prefix(2)), [0x15, 0x00])
        }
    }

    /// A SET_REPORT does not answer a write to an OUT endpoint (the device would have had to
    /// have one), but a transcript line, which does not say how it was sent, answers both.
    func testRoutesMustAgreeExceptInTranscripts() throws {
        let url = try pcap(of: inOnly, exchanges: [([0x04, 0x00], [[0x34, 0x01, 0x0C]])])
        let device = try XCTUnwrap(RecordedUSBDevice.devices(in: try USBCaptureReader.read(contentsOf: url)).first)
        let replay = ReplayUSBTransport(device)
        XCTAssertThrowsError(
            try replay.write(report([0x04, 0x00]), to: USBEndpoint(address: 0x02, type: .interrupt, maxPacketSize: 64), timeout: .seconds(1)))

        let transcript = "out," + Hex.encode(report([0x04, 0x00])) + "\nin," + Hex.encode(report([0x34, 0x01, 0x0C])) + "\n"
        let captured = try XCTUnwrap(RecordedUSBDevice.devices(in: try USBCaptureReader.parse(Array(transcript.utf8), name: "t.txt")).first)
        for viaSetReport in [true, false] {
            let replay = ReplayUSBTransport(captured)
            if viaSetReport {
                _ = try replay.control(HIDChannel.setReport(interface: 0, length: 64), data: report([0x04, 0x00]), timeout: .seconds(1))
            } else {
                try replay.write(report([0x04, 0x00]), to: USBEndpoint(address: 0x01, type: .interrupt, maxPacketSize: 64), timeout: .seconds(1))
            }
            XCTAssertEqual(
                Array(
                    try replay.read(from: USBEndpoint(address: 0x81, type: .interrupt, maxPacketSize: 64), maxLength: 64, timeout: .seconds(1)).bytes
                        .prefix(3)), [0x34, 0x01, 0x0C])
        }
    }

    /// What the recorder writes for a HID session replays request for request: SET_REPORTs as
    /// control transfers with their setup, reports as interrupt transfers.
    func testRecordedHIDSessionReplays() throws {
        let source = try XCTUnwrap(
            RecordedUSBDevice.devices(
                in: try USBCaptureReader.read(
                    contentsOf: pcap(
                        of: inOnly, exchanges: [([0x04, 0x00], [[0x34, 0x01, 0x0C]]), ([0x01, 0x00], [[0x71, 0x01, 0x01]])]))
            ).first)
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("recorded.pcap")
        var tick = 0.0
        let recorder = try RecordingUSBTransport(recording: ReplayUSBTransport(source), to: url) {
            tick += 0.001
            return Date(timeIntervalSince1970: 1_800_000_000 + tick)
        }
        let channel = try XCTUnwrap(HIDChannel(transport: recorder))
        try channel.claim()
        for request: [UInt8] in [[0x04, 0x00], [0x01, 0x00]] {
            try channel.send(report(request), timeout: .seconds(1))
            _ = try channel.receive(maxLength: 64, timeout: .seconds(1))
        }
        try recorder.finish()

        let recorded = try USBCaptureReader.read(contentsOf: url)
        XCTAssertEqual(recorded.format, .pcap(linkType: 220))
        let device = try XCTUnwrap(RecordedUSBDevice.devices(in: recorded).first)
        XCTAssertEqual(device.description.idString, "1a61:3450")
        XCTAssertEqual(device.description.interfaces, inOnly.interfaces)
        let setReports = device.transfers.filter { $0.type == .control && $0.direction == .out }
        XCTAssertEqual(
            setReports.map(\.setup), [[0x21, 0x09, 0x00, 0x02, 0x00, 0x00, 0x40, 0x00]] + [[0x21, 0x09, 0x00, 0x02, 0x00, 0x00, 0x40, 0x00]])
        XCTAssertEqual(setReports.map { Array($0.data.prefix(2)) }, [[0x04, 0x00], [0x01, 0x00]])
        XCTAssertEqual(device.exchanges.map { Array($0.replies[0].data.prefix(3)) }, [[0x34, 0x01, 0x0C], [0x71, 0x01, 0x01]])

        let again = try XCTUnwrap(HIDChannel(transport: ReplayUSBTransport(device)))
        try again.send(report([0x01, 0x00]), timeout: .seconds(1))
        XCTAssertEqual(Array(try again.receive(maxLength: 64, timeout: .seconds(1)).bytes.prefix(3)), [0x71, 0x01, 0x01])
    }

    /// A serial adapter's line settings (a class request with data, not SET_REPORT) are not part
    /// of the conversation.
    func testOtherClassRequestsAreNotConversation() {
        let lineCoding = USBTransfer(
            packetNumber: 1, endpoint: 0, type: .control, direction: .out,
            setup: [0x21, 0x20, 0, 0, 0, 0, 7, 0], data: [0x80, 0x25, 0, 0, 0, 0, 8])
        XCTAssertFalse(lineCoding.isConversation)
        let setReport = USBTransfer(
            packetNumber: 2, endpoint: 0, type: .control, direction: .out,
            setup: HIDChannel.setReport(interface: 0, length: 2).bytes, data: [0x04, 0x00])
        XCTAssertTrue(setReport.isConversation)
    }
}
