import CaptureUSB
import Foundation
import TestSupport
import Transport
import XCTest

final class WriterRoundTripTests: XCTestCase {
    private let base = Date(timeIntervalSince1970: 1_700_000_000.123456)
    private let big = (0..<2118).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    /// Control IN descriptor, bulk OUT, bulk IN of 2118 bytes, and an IN that failed with -108.
    private var transfers: [USBTransfer] {
        [
            USBTransfer(
                packetNumber: 0, endpoint: 0x80, type: .control, direction: .in, setup: Scenario.getDescriptor,
                data: Scenario.deviceDescriptor),
            USBTransfer(
                packetNumber: 0, bus: 3, device: 9, endpoint: 0x02, type: .bulk, direction: .out, data: Scenario.bulkOut),
            USBTransfer(packetNumber: 0, endpoint: 0x83, type: .bulk, direction: .in, data: big),
            USBTransfer(packetNumber: 0, endpoint: 0x83, type: .bulk, direction: .in, data: [], status: -108),
        ]
    }

    private func times(_ index: Int) -> (submitted: Date, completed: Date) {
        let submitted = base.addingTimeInterval(Double(index) * 0.25)
        return (submitted, submitted.addingTimeInterval(0.000789 + Double(index) * 0.000001))
    }

    func testUsbmonPcapWriterRoundTrip() throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("session.pcap")
        let writer = try UsbmonPcapWriter(url: url, bus: 2, device: 7)
        for (index, transfer) in transfers.enumerated() {
            let (submitted, completed) = times(index)
            try writer.append(
                transfer, submittedAt: submitted, completedAt: completed, requestedLength: index == 2 ? 4096 : nil)
        }
        try writer.close()

        let capture = try USBCaptureReader.read(contentsOf: url)
        XCTAssertEqual(capture.format, .pcap(linkType: 220))
        XCTAssertEqual(capture.transfers.count, 4)
        let packetNumbers = [2, 3, 6, 8]  // IN data on the completion, OUT data on the submission
        for (index, (read, written)) in zip(capture.transfers, transfers).enumerated() {
            var expected = written
            expected.packetNumber = packetNumbers[index]
            expected.bus = written.bus != 0 ? written.bus : 2
            expected.device = written.device != 0 ? written.device : 7
            expected.timestamp = read.timestamp
            XCTAssertEqual(read, expected, "transfer \(index)")
            Scenario.assertTime(read.timestamp, times(index).completed.timeIntervalSince1970)
        }

        // The records are the kernel's: check the IN submission and the control submission by hand.
        let bytes = [UInt8](try Data(contentsOf: url))
        XCTAssertEqual(Array(bytes[0..<4]), [0xD4, 0xC3, 0xB2, 0xA1])
        XCTAssertEqual(Array(bytes[16..<24]), [0x00, 0x00, 0x04, 0x00, 220, 0, 0, 0])  // snaplen 262144, link type 220
        let controlS = 24 + 16
        XCTAssertEqual(bytes[controlS + 8], UInt8(ascii: "S"))
        XCTAssertEqual(bytes[controlS + 14], 0)  // flag_setup: setup present
        XCTAssertEqual(bytes[controlS + 15], UInt8(ascii: "<"))  // no data on an IN submission
        XCTAssertEqual(Array(bytes[(controlS + 28)..<(controlS + 32)]), [0x8D, 0xFF, 0xFF, 0xFF])  // -115
        XCTAssertEqual(Array(bytes[(controlS + 40)..<(controlS + 48)]), Scenario.getDescriptor)
        // Third transfer's submission: records 1–4 are 80, 98, 86, 80 bytes.
        let bigS = 24 + 80 + 98 + 86 + 80 + 16
        XCTAssertEqual(bytes[bigS + 8], UInt8(ascii: "S"))
        XCTAssertEqual(Array(bytes[(bigS + 32)..<(bigS + 40)]), [0x00, 0x10, 0, 0, 0, 0, 0, 0])  // length 4096, len_cap 0
    }

    func testTranscriptWriterRoundTrip() throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("session.txt")
        let writer = try TranscriptWriter(url: url)
        for (index, transfer) in transfers.enumerated() {
            let (submitted, completed) = times(index)
            try writer.append(transfer, submittedAt: submitted, completedAt: completed)
        }
        try writer.close()

        let text = try String(contentsOf: url, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("in,12 01 00 02 00 00 00 40 A3 22 47 00 00 01 01 02 03 01\nout,01 06 00 0A 5E 65\n"))
        let capture = try USBCaptureReader.read(contentsOf: url)
        XCTAssertEqual(capture.format, .transcript)
        XCTAssertEqual(
            capture.transfers,
            transfers.enumerated().map { index, written in
                USBTransfer(packetNumber: index + 1, endpoint: nil, type: .bulk, direction: written.direction, data: written.data)
            })
    }

    func testWriterReportsAnUnwritablePlace() {
        let url = URL(fileURLWithPath: "/nonexistent-folder-for-glucobridge/x.pcap")
        XCTAssertThrowsError(try UsbmonPcapWriter(url: url, bus: 1, device: 1)) { error in
            guard case .writeFailed(let file, _) = error as? CaptureError else { return XCTFail("\(error)") }
            XCTAssertEqual(file, "x.pcap")
        }
    }
}
