import CaptureUSB
import Foundation
import TestSupport
import Transport
import XCTest

final class CaptureErrorTests: XCTestCase {
    // Record layout of Scenario.pcap(): header 24; packet 1 at 24 (16+64); packet 2 at 104
    // (16+64+18); packet 3 at 202 (16+64+6 = 86 bytes, data 70 bytes after its header).

    func testFileCutInsideARecordHeader() {
        let bytes = Array(Scenario.pcap().prefix(202 + 5))
        let error = Scenario.captureError { () throws(CaptureError) in try USBCaptureReader.parse(bytes, name: "cut.pcap") }
        XCTAssertEqual(
            error, .truncated(file: "cut.pcap", part: .recordHeader(packet: 3), offset: 202, needed: 16, remaining: 5))
        XCTAssertEqual(
            error?.description,
            "cut.pcap: packet 3 at byte 202: its record header needs 16 bytes but only 5 remain — the file is cut short")
    }

    func testFileCutInsidePacketData() {
        let bytes = Array(Scenario.pcap().prefix(202 + 16 + 30))
        let error = Scenario.captureError { () throws(CaptureError) in try USBCaptureReader.parse(bytes, name: "cut.pcap") }
        XCTAssertEqual(
            error, .truncated(file: "cut.pcap", part: .recordData(packet: 3), offset: 202, needed: 70, remaining: 30))
        XCTAssertEqual(
            error?.description, "cut.pcap: packet 3 at byte 202 claims 70 bytes but only 30 remain — the file is cut short")
    }

    func testFileCutInsideTheGlobalHeader() {
        let bytes = Array(Scenario.pcap().prefix(10))
        let error = Scenario.captureError { () throws(CaptureError) in try USBCaptureReader.parse(bytes, name: "tiny.pcap") }
        XCTAssertEqual(error, .truncated(file: "tiny.pcap", part: .fileHeader, offset: 0, needed: 24, remaining: 10))
    }

    func testUnsupportedLinkType() {
        var file = PcapFile(linkType: 1)
        file.add([UInt8](repeating: 0xFF, count: 60), seconds: 1, fraction: 0)
        let error = Scenario.captureError { () throws(CaptureError) in
            try USBCaptureReader.parse(file.bytes, name: "eth.pcap")
        }
        XCTAssertEqual(error, .unsupportedLinkType(file: "eth.pcap", linkType: 1))
        XCTAssertTrue(error?.description.hasPrefix("eth.pcap: link type 1 is not USB") ?? false)
    }

    func testUsbmonRecordShorterThanItsHeader() {
        var file = PcapFile()
        file.add(Array(Scenario.events[0].bytes().prefix(30)), seconds: 1, fraction: 0)
        let error = Scenario.captureError { () throws(CaptureError) in
            try USBCaptureReader.parse(file.bytes, name: "short.pcap")
        }
        XCTAssertEqual(
            error,
            .badPacketHeader(file: "short.pcap", packet: 1, offset: 24, kind: "64-byte usbmon", needed: 64, found: 30))
        XCTAssertEqual(
            error?.description,
            "short.pcap: packet 1 at byte 24 is too short for its 64-byte usbmon header: expected at least 64 bytes, found 30")
    }

    func testGarbageIsAnUnknownFormat() {
        let garbage: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00]
        let error = Scenario.captureError { () throws(CaptureError) in try USBCaptureReader.parse(garbage, name: "a.out") }
        XCTAssertEqual(error, .unknownFormat(file: "a.out", firstBytes: garbage))
        XCTAssertTrue(error?.description.contains("7F 45 4C 46 02 01 01 00 00 00") ?? false)

        let text = Array("timestamp,glucose\n2024-01-01,120\n".utf8)
        let textError = Scenario.captureError { () throws(CaptureError) in try USBCaptureReader.parse(text, name: "g.csv") }
        XCTAssertEqual(textError, .unknownFormat(file: "g.csv", firstBytes: Array(text.prefix(16))))
    }

    func testEmptyFile() throws {
        let error = Scenario.captureError { () throws(CaptureError) in try USBCaptureReader.parse([], name: "none.pcap") }
        XCTAssertEqual(error, .empty(file: "none.pcap"))

        let url = try Fixtures.temporaryDirectory().appendingPathComponent("zero.pcap")
        try Data().write(to: url)
        let diskError = Scenario.captureError { () throws(CaptureError) in try USBCaptureReader.read(contentsOf: url) }
        XCTAssertEqual(diskError, .empty(file: "zero.pcap"))
    }

    func testUnreadableFileGivesTheSystemReason() throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("missing.pcap")
        let error = Scenario.captureError { () throws(CaptureError) in try USBCaptureReader.read(contentsOf: url) }
        XCTAssertEqual(error, .unreadable(file: "missing.pcap", reason: "No such file or directory"))
        XCTAssertEqual(error?.description, "missing.pcap: cannot read the file: No such file or directory")
    }
}
