import CaptureUSB
import Foundation
import TestSupport
import XCTest

final class PcapReaderTests: XCTestCase {
    func testMicrosecondPcapDecodesControlBulkOutAndBulkIn() throws {
        let capture = try USBCaptureReader.parse(Scenario.pcap(), name: "usb.pcap")
        XCTAssertEqual(capture.format, .pcap(linkType: 220))
        Scenario.assertDecoded(capture.transfers)
    }

    func testNanosecondPcapKeepsSubMicrosecondTime() throws {
        var file = PcapFile(nanoseconds: true)
        for event in Scenario.events { file.add(event) }
        let capture = try USBCaptureReader.parse(file.bytes, name: "ns.pcap")
        XCTAssertEqual(capture.format, .pcap(linkType: 220))
        Scenario.assertDecoded(capture.transfers)

        // One more exchange whose completion is 0.5 µs past a whole microsecond.
        var precise = PcapFile(nanoseconds: true)
        let events = Scenario.events
        precise.add(events[4].bytes(), seconds: 1_700_000_000, fraction: 300_000_000)
        precise.add(events[5].bytes(), seconds: 1_700_000_000, fraction: 301_000_500)
        let answer = try XCTUnwrap(USBCaptureReader.parse(precise.bytes, name: "ns.pcap").transfers.first)
        XCTAssertEqual(try XCTUnwrap(answer.timestamp).timeIntervalSince1970, 1_700_000_000.3010005, accuracy: 2e-7)
    }

    func testBigEndianPcapWithLittleEndianUsbmonHeaders() throws {
        let bytes = Scenario.pcap(bigEndian: true)
        XCTAssertEqual(Array(bytes.prefix(4)), [0xA1, 0xB2, 0xC3, 0xD4])
        let capture = try USBCaptureReader.parse(bytes, name: "be.pcap")
        XCTAssertEqual(capture.format, .pcap(linkType: 220))
        Scenario.assertDecoded(capture.transfers)

        var nano = PcapFile(bigEndian: true, nanoseconds: true)
        for event in Scenario.events { nano.add(event) }
        XCTAssertEqual(Array(nano.bytes.prefix(4)), [0xA1, 0xB2, 0x3C, 0x4D])
        Scenario.assertDecoded(try USBCaptureReader.parse(nano.bytes, name: "be-ns.pcap").transfers)
    }

    func testLinkType189With48ByteHeaders() throws {
        let capture = try USBCaptureReader.parse(Scenario.pcap(headerLength: 48), name: "old.pcap")
        XCTAssertEqual(capture.format, .pcap(linkType: 189))
        Scenario.assertDecoded(capture.transfers)
    }

    func testSubmissionErrorAndFailedCompletionKeepTheirStatus() throws {
        var file = PcapFile()
        file.add(
            UsbmonEvent(
                id: 7, event: "S", type: 3, endpoint: 0x02, seconds: 100, micros: 10, status: -115, length: 2,
                data: [0xAA, 0xBB]))
        file.add(UsbmonEvent(id: 7, event: "E", type: 3, endpoint: 0x02, seconds: 100, micros: 20, status: -19, length: 0))
        file.add(UsbmonEvent(id: 8, event: "S", type: 3, endpoint: 0x83, seconds: 100, micros: 30, status: -115, length: 64))
        file.add(
            UsbmonEvent(id: 8, event: "C", type: 3, endpoint: 0x83, seconds: 100, micros: 40, status: -108, length: 0, data: []))
        // A submission never completed inside the capture: dropped.
        file.add(UsbmonEvent(id: 9, event: "S", type: 3, endpoint: 0x83, seconds: 100, micros: 50, status: -115, length: 64))

        let transfers = try USBCaptureReader.parse(file.bytes, name: "errors.pcap").transfers
        XCTAssertEqual(transfers.count, 2)
        XCTAssertEqual(transfers[0].direction, .out)
        XCTAssertEqual(transfers[0].status, -19)
        XCTAssertEqual(transfers[0].data, [0xAA, 0xBB])
        XCTAssertEqual(transfers[0].packetNumber, 1)
        Scenario.assertTime(transfers[0].timestamp, 100.000020)
        XCTAssertEqual(transfers[1].direction, .in)
        XCTAssertEqual(transfers[1].endpoint, 0x83)
        XCTAssertEqual(transfers[1].status, -108)
        XCTAssertEqual(transfers[1].data, [])
        XCTAssertEqual(transfers[1].packetNumber, 4)
        Scenario.assertTime(transfers[1].timestamp, 100.000040)
    }

    func testTransfersComeOutInCompletionOrder() throws {
        var file = PcapFile()
        file.add(UsbmonEvent(id: 1, event: "S", type: 3, endpoint: 0x81, seconds: 5, micros: 1, status: -115, length: 64))
        file.add(UsbmonEvent(id: 2, event: "S", type: 3, endpoint: 0x01, seconds: 5, micros: 2, status: -115, length: 1, data: [0x42]))
        file.add(UsbmonEvent(id: 2, event: "C", type: 3, endpoint: 0x01, seconds: 5, micros: 3, length: 1))
        file.add(UsbmonEvent(id: 1, event: "C", type: 3, endpoint: 0x81, seconds: 5, micros: 4, length: 1, data: [0x43]))
        let transfers = try USBCaptureReader.parse(file.bytes, name: "order.pcap").transfers
        XCTAssertEqual(transfers.map(\.data), [[0x42], [0x43]])
        XCTAssertEqual(transfers.map(\.packetNumber), [2, 4])
    }

    func testSnaplenCutRecordIsMarkedAndItsTailNotInvented() throws {
        let payload = (0..<100).map { UInt8($0) }
        var file = PcapFile()
        file.add(UsbmonEvent(id: 3, event: "S", type: 3, endpoint: 0x83, seconds: 9, micros: 0, status: -115, length: 128))
        let completion = UsbmonEvent(
            id: 3, event: "C", type: 3, endpoint: 0x83, seconds: 9, micros: 5, length: 100, data: payload)
        // The snapshot length kept the header and 40 of the 100 data bytes.
        file.add(Array(completion.bytes().prefix(64 + 40)), seconds: 9, fraction: 5, originalLength: 164)

        let transfers = try USBCaptureReader.parse(file.bytes, name: "snap.pcap").transfers
        XCTAssertEqual(transfers.count, 1)
        XCTAssertTrue(transfers[0].isTruncated)
        XCTAssertEqual(transfers[0].data, Array(payload.prefix(40)))
    }

    func testUsbmonLenCapShorterThanLengthIsMarked() throws {
        var file = PcapFile()
        file.add(
            UsbmonEvent(
                id: 4, event: "S", type: 3, endpoint: 0x02, seconds: 9, micros: 0, status: -115, length: 10,
                data: [1, 2, 3, 4]))
        file.add(UsbmonEvent(id: 4, event: "C", type: 3, endpoint: 0x02, seconds: 9, micros: 1, length: 10))
        file.add(UsbmonEvent(id: 5, event: "S", type: 3, endpoint: 0x83, seconds: 9, micros: 2, status: -115, length: 512))
        file.add(
            UsbmonEvent(
                id: 5, event: "C", type: 3, endpoint: 0x83, seconds: 9, micros: 3, length: 200,
                data: [UInt8](repeating: 0x5A, count: 50)))
        // A completion whose len_cap claims more than the record holds: only the captured bytes count.
        file.add(UsbmonEvent(id: 6, event: "S", type: 3, endpoint: 0x83, seconds: 9, micros: 4, status: -115, length: 512))
        file.add(
            UsbmonEvent(
                id: 6, event: "C", type: 3, endpoint: 0x83, seconds: 9, micros: 5, length: 8, data: [9, 9, 9],
                lenCap: 8))

        let transfers = try USBCaptureReader.parse(file.bytes, name: "lencap.pcap").transfers
        XCTAssertEqual(transfers.count, 3)
        XCTAssertEqual(transfers[0].data, [1, 2, 3, 4])
        XCTAssertTrue(transfers[0].isTruncated)
        XCTAssertEqual(transfers[1].data, [UInt8](repeating: 0x5A, count: 50))
        XCTAssertTrue(transfers[1].isTruncated)
        XCTAssertEqual(transfers[2].data, [9, 9, 9])
        XCTAssertTrue(transfers[2].isTruncated)
    }

    func testReadsFromDisk() throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("disk.pcap")
        try Data(Scenario.pcap()).write(to: url)
        let capture = try USBCaptureReader.read(contentsOf: url)
        Scenario.assertDecoded(capture.transfers)
    }
}
