import Drivers
import Foundation
import Model
import TestSupport
import XCTest

/// The shared HID protocol's framing and text layer, on Tidepool's reply strings (BSD-2, in
/// fixtures) and OpenGlucose's InsuLinx `$result?` reply (GPL-2.0, read from ../shared only).
final class FreeStyleProtocolTests: XCTestCase {
    func testReportFramingHonoursTheLengthByte() throws {
        // Buffer reuse: the bytes after the length are left over from an earlier, longer reply.
        var report = [UInt8](repeating: 0x41, count: 64)
        report[0] = 0x06
        report[1] = 14
        report.replaceSubrange(2..<16, with: Array("JAGT241-U6242".utf8) + [0])
        let message = try FreeStyleMessage.decode(report, location: "in the test")
        XCTAssertEqual(message.type, 0x06)
        XCTAssertEqual(message.payload.count, 14)
        XCTAssertEqual(message.payload.last, 0)

        let command = FreeStyleText.message(for: "$date?")
        XCTAssertEqual(command.report.count, 64)
        XCTAssertEqual(Array(command.report.prefix(10)), [0x60, 0x08] + Array("$date?\r\n".utf8))
        XCTAssertEqual(Set(command.report.dropFirst(10)), [0])
        XCTAssertEqual(try FreeStyleMessage.decode(command.report, location: "test"), command)
    }

    func testTruncatedAndOverlongReportsAreErrors() {
        XCTAssertThrowsError(try FreeStyleMessage.decode([0x60], location: WireLocation(packet: 7))) { error in
            XCTAssertEqual("\(error)", "bad FreeStyle HID report at capture packet 7: 1 byte, shorter than the 2-byte header")
        }
        XCTAssertThrowsError(try FreeStyleMessage.decode([0x60, 0x10] + Array("CKSM:".utf8), location: WireLocation(packet: 8))) { error in
            XCTAssertEqual("\(error)", "bad FreeStyle HID report at capture packet 8: length byte 16 needs 18 bytes but the report has 7 (truncated)")
        }
        XCTAssertThrowsError(try FreeStyleMessage.decode([0x60, 63] + [UInt8](repeating: 0x30, count: 62), location: "x")) { error in
            XCTAssertTrue("\(error)".contains("length byte 63 is more than the 62 bytes"), "\(error)")
        }
    }

    /// Every reply string in Tidepool's test of its text parser, with the outcome it expects.
    func testTidepoolTextReplies() throws {
        let text = try String(contentsOf: Fixtures.url("freestyle/tidepool/text-responses.txt"), encoding: .utf8)
        let cases = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line -> (reply: [UInt8], expected: String) in
            let parts = line.split(separator: "\t")
            let reply = parts[0].replacingOccurrences(of: "\\r", with: "\r").replacingOccurrences(of: "\\n", with: "\n")
            return (Array(reply.utf8), String(parts[1]))
        }
        XCTAssertEqual(cases.count, 5)
        var outcomes: [String] = []
        for (reply, expected) in cases {
            do {
                let message = try FreeStyleText.verifiedMessage(of: reply, command: "$test?")
                XCTAssertEqual(String(decoding: message, as: UTF8.self), expected + "\r\n")
                outcomes.append("ok")
            } catch {
                XCTAssertEqual(expected, "Error", "\(error)")
                outcomes.append("\(error)")
            }
        }
        XCTAssertEqual(
            outcomes,
            [
                "ok", "ok",
                "the reader refused $test? (CMD Fail!)",
                "the reply to $test? is corrupt: its CKSM checksum says 00000111 but its bytes sum to 00000108; nothing from this reply was stored",
                "the reply to $test? is malformed: no CKSM:<8 uppercase hex digits> line before the status",
            ])
        XCTAssertEqual(FreeStyleText.checksum(Array("2.1.2\r\n".utf8)), 0x108)
        XCTAssertEqual(FreeStyleText.checksum(Array("\r\n".utf8)), 0x17)
        XCTAssertEqual(FreeStyleText.checksum([UInt8]()), 0)
    }

    func testMultiRecordTrailer() throws {
        let rows = ["1,2,3", "4,5,6"].map { $0 + "\r\n" }.joined()
        let sum = FreeStyleText.checksum(Array(rows.utf8))
        let good = Array((rows + "2," + String(format: "%08X", sum) + "\r\n").utf8)
        XCTAssertEqual(try FreeStyleText.records(in: good, command: "$result?"), [["1", "2", "3"], ["4", "5", "6"]])
        XCTAssertEqual(try FreeStyleText.records(in: Array("Log Empty\r\n".utf8), command: "$result?"), [])

        let miscounted = Array((rows + "3," + String(format: "%08X", sum) + "\r\n").utf8)
        XCTAssertThrowsError(try FreeStyleText.records(in: miscounted, command: "$result?")) { error in
            XCTAssertEqual(
                "\(error)", "the records of $result? are not complete: the trailer counts 3 records but 2 arrived; nothing from this reply was stored"
            )
        }
        let wrongSum = Array((rows + "2," + String(format: "%08X", sum + 1) + "\r\n").utf8)
        XCTAssertThrowsError(try FreeStyleText.records(in: wrongSum, command: "$result?")) { error in
            guard case FreeStyleError.checksumMismatch("$result?", "record trailer", sum + 1, sum) = error else { return XCTFail("\(error)") }
        }
        let noTrailer = Array(rows.utf8)
        XCTAssertThrowsError(try FreeStyleText.records(in: noTrailer, command: "$history?")) { error in
            XCTAssertTrue(
                "\(error)".hasPrefix("the records of $history? are not complete: the last line \"4,5,6\" is not N,<8 uppercase hex digits>"),
                "\(error)")
        }
    }

    /// Row lengths differ by model and firmware: fields are read by index and a row too short for
    /// a field it needs is named, not misread.
    func testRowsAreReadByIndexWithLengthChecks() throws {
        func session(_ command: String, _ rows: [String]) throws -> FreeStyleSession {
            let lines = rows.map { $0 + "\r\n" }.joined()
            let message = Array((lines + "\(rows.count)," + String(format: "%08X", FreeStyleText.checksum(Array(lines.utf8))) + "\r\n").utf8)
            var session = FreeStyleSession()
            try session.absorb(textReply: message, command: command, hostTime: nil)
            return session
        }
        // A longer row (more trailing fields, as later firmware sends) reads the same.
        let long = try session("$history?", ["17,12,1,11,25,10,23,43,1,0,0,0,0,85,60,0,9,9,9"])
        guard case .reading(let reading) = long.entries.first else { return XCTFail() }
        XCTAssertEqual(reading.value, 85)
        XCTAssertEqual(reading.time, try XCTUnwrap(FreeStyleClock.wallSeconds(year: 25, month: 1, day: 11, hour: 10, minute: 23, second: 43)))
        // A 15-field row (no first-reading column) has no field 15.
        XCTAssertThrowsError(try session("$history?", ["243,12,1,11,25,10,23,43,1,0,0,0,85,60,0"])) { error in
            XCTAssertEqual("\(error)", "$history? row 1 \"243,12,1,11,25,10,23,43,1,0,0,0,85,60,0\": 15 fields, but the error field is field 15")
        }
        XCTAssertThrowsError(try session("$result?", ["0,20476,8,27,14,12,47,1,0,0,0,3,0"])) { error in
            XCTAssertTrue("\(error)".hasSuffix("13 fields, but the value is field 13"), "\(error)")
        }
        XCTAssertThrowsError(try session("$result?", ["7,20,2,30,14,12,47,1,105"])) { error in
            XCTAssertTrue("\(error)".hasSuffix("2/30/14 12:47:0 is not a date and time"), "\(error)")
        }
        XCTAssertThrowsError(try session("$arresult?", ["9,2,3,14,25,7,55,12,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"])) { error in
            XCTAssertTrue("\(error)".hasSuffix("glucose 0 mg/dL is impossible"), "\(error)")
        }
    }

    /// OpenGlucose's capture of an InsuLinx: the reassembled `$result?` reply verifies (CKSM and
    /// trailer) and holds 237 records: 227 glucose results, 6 rows of type 4 and 4 of type 6.
    func testInsuLinxResultReply() throws {
        guard let url = Fixtures.sharedVector("freestyle/openglucose-insulinx/result-reply.raw") else {
            throw XCTSkip("../shared is absent")
        }
        let reply = [UInt8](try Data(contentsOf: url))
        let message = try FreeStyleText.verifiedMessage(of: reply, command: "$result?")
        XCTAssertEqual(FreeStyleText.checksum(message), 0x70167)
        var session = FreeStyleSession()
        try session.absorb(textReply: message, command: "$result?", hostTime: nil)
        XCTAssertEqual(session.entries.count, 237)
        session.hidSerial = "JAGT241-U6242"
        let download = try session.normalised()
        XCTAssertEqual(download.glucose.count, 227)
        XCTAssertEqual(download.events, [ImportEvent(name: "result-row-type-4", count: 6), ImportEvent(name: "result-row-type-6", count: 4)])
        // The newest row: 0,20476,8,27,14,12,47,1,0,0,0,3,0,68,0,0.
        let newest = try XCTUnwrap(download.glucose.first)
        XCTAssertEqual(newest.recordKey, "result:20476")
        XCTAssertEqual(newest.value, 68)
        XCTAssertEqual(newest.kind, .fingerstick)
        XCTAssertNil(newest.flag)
        XCTAssertEqual(CivilDate.wallClock(newest.deviceSeconds), "2014-08-27T12:47:00")
        XCTAssertEqual(download.cursors, ["result": 20476])

        // One byte changed inside the records: the trailer no longer adds up, nothing is kept.
        var damaged = reply
        let position = try XCTUnwrap(reply.firstIndex(of: UInt8(ascii: "6")))
        damaged[position] = UInt8(ascii: "7")
        XCTAssertThrowsError(try FreeStyleText.verifiedMessage(of: damaged, command: "$result?")) { error in
            guard case FreeStyleError.checksumMismatch("$result?", "CKSM", 0x70167, 0x70168) = error else { return XCTFail("\(error)") }
        }
    }
}
