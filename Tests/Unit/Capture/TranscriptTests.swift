import CaptureUSB
import Foundation
import TestSupport
import Transport
import XCTest

final class TranscriptTests: XCTestCase {
    func testLinesCommentsAndBlankLines() throws {
        let text = "# session with a receiver\n\nOUT,01 06 00 0A 5E 65\r\n  \n\tin,0106000135d4  \nout,\n"
        let capture = try USBCaptureReader.parse(Array(text.utf8), name: "t.txt")
        XCTAssertEqual(capture.format, .transcript)
        XCTAssertFalse(capture.format.hasTimestamps)
        XCTAssertEqual(
            capture.transfers,
            [
                USBTransfer(packetNumber: 3, endpoint: nil, type: .bulk, direction: .out, data: Scenario.bulkOut),
                USBTransfer(packetNumber: 5, endpoint: nil, type: .bulk, direction: .in, data: Scenario.bulkIn),
                USBTransfer(packetNumber: 6, endpoint: nil, type: .bulk, direction: .out, data: []),
            ])
    }

    func testBadLinesNameTheLineAndTheProblem() {
        func error(_ text: String) -> CaptureError? {
            Scenario.captureError { () throws(CaptureError) in try USBCaptureReader.parse(Array(text.utf8), name: "t.txt") }
        }
        XCTAssertEqual(
            error("out,01 02\nin,01 0\n"),
            .badTranscriptLine(
                file: "t.txt", line: 2, text: "in,01 0", problem: "odd number of hex digits (3) — a byte is missing a digit"))
        XCTAssertEqual(
            error("out,01\n# note\nsideways,01\n"),
            .badTranscriptLine(file: "t.txt", line: 3, text: "sideways,01", problem: "unknown direction \"sideways\" (use out or in)"))
        XCTAssertEqual(
            error("in,01\nin,01 0G\n"),
            .badTranscriptLine(
                file: "t.txt", line: 2, text: "in,01 0G", problem: "'G' at column 5 of the hex is not a hex digit"))
        XCTAssertEqual(
            error("in,01\nin,0 1\n"),
            .badTranscriptLine(
                file: "t.txt", line: 2, text: "in,0 1", problem: "a hex pair is split by a space at column 2"))
        XCTAssertEqual(
            error("in,01\nin 01 02\n"),
            .badTranscriptLine(file: "t.txt", line: 2, text: "in 01 02", problem: "no comma after the direction"))
        XCTAssertEqual(
            error("in,01\nin,01 0\n")?.description,
            "t.txt: line 2 \"in,01 0\": odd number of hex digits (3) — a byte is missing a digit — expected out,<hex> or in,<hex>")
    }

    func testRealDexcomSessionTranscript() throws {
        guard let url = Fixtures.sharedVector("dexcom/bewest-decoding-dexcom/session-hex-lines.txt") else {
            throw XCTSkip("shared vectors are not present")
        }
        let capture = try USBCaptureReader.read(contentsOf: url)
        XCTAssertEqual(capture.format, .transcript)
        let transfers = capture.transfers
        XCTAssertEqual(transfers.count, 171)
        XCTAssertEqual(transfers.filter { $0.direction == .out }.count, 86)
        XCTAssertEqual(transfers.filter { $0.direction == .in }.count, 85)
        XCTAssertEqual(transfers[0], USBTransfer(packetNumber: 1, endpoint: nil, type: .bulk, direction: .out, data: Scenario.bulkOut))
        XCTAssertEqual(transfers[1].direction, .out)  // the first OUT has no answer
        XCTAssertEqual(transfers[2].data.count, 259)
        let line63 = try XCTUnwrap(transfers.first { $0.packetNumber == 63 })
        XCTAssertEqual(line63.direction, .in)
        XCTAssertEqual(line63.data.count, 1110)
        XCTAssertEqual(transfers.map(\.data.count).max(), 2118)
        XCTAssertTrue(transfers.allSatisfy { $0.timestamp == nil && $0.endpoint == nil && !$0.isTruncated })
    }
}
