import Checksums
import Drivers
import Transport
import XCTest

/// The Verio's LifeScan frames, commands and records, against the layouts of
/// glucometer-protocols `src/lifescan/onetouch-verio-2015.md` and the CRC test vectors of
/// glucometerutils (`test_otultraeasy.py`).
final class VerioFrameTests: XCTestCase {
    /// glucometerutils' two LifeScan frames: their CRCs, by the codec's CRC.
    func testLifeScanCRCVectors() {
        XCTAssertEqual(CRC16.ibm3740.checksum([0x02, 0x06, 0x08, 0x03] as [UInt8]), 0x62C2)
        XCTAssertEqual(CRC16.ibm3740.checksum([0x02, 0x09, 0x03, 0x05, 0x0D, 0x02, 0x03] as [UInt8]), 0x9F08)
    }

    /// Each request is the frame the protocol description gives: its length byte, the command
    /// bytes, ETX and a CRC that checks.
    func testRequestFrames() throws {
        let expected: [(VerioCommand, String, UInt32)] = [
            (.query(.serial), "02 0A 00 03 E6 02 00 03", 3),
            (.readUnit, "02 09 00 03 04 00 03", 4),
            (.readClock, "02 09 00 03 20 02 03", 3),
            (.recordCount, "02 09 00 03 27 00 03", 3),
            (.record(0x0102), "02 0C 00 03 31 02 02 01 00 03", 3),
        ]
        for (command, head, block) in expected {
            let frame = VerioFrame.encode(command.message)
            XCTAssertEqual(Hex.encode(Array(frame.dropLast(2))), head, command.name)
            let crc = CRC16.ibm3740.checksum(frame.dropLast(2))
            XCTAssertEqual(Array(frame.suffix(2)), [UInt8(crc & 0xFF), UInt8(crc >> 8)])
            XCTAssertEqual(command.block, block)
            XCTAssertEqual(VerioCommand(message: command.message, block: block), command)
            XCTAssertEqual(try VerioFrame.decode(VerioFrame.block(command.message), reply: "request"), command.message)
        }
        // Another prefix (Tidepool sends 0x04) is the same command; the erase and the clock
        // setting are no command the driver knows.
        XCTAssertEqual(VerioCommand(message: [0x04, 0x27, 0x00], block: 3), .recordCount)
        XCTAssertNil(VerioCommand(message: [0x03, 0x1A], block: 3))
        XCTAssertNil(VerioCommand(message: [0x03, 0x20, 0x01, 0, 0, 0, 0], block: 3))
    }

    /// A READ RECORD reply laid out byte by byte as the description gives it: 24 bytes.
    func testRecordReply() throws {
        // 2026-03-09 07:15:00 is 826355700 s after 2000-01-01: 0x3141_2FF4.
        var frame: [UInt8] = [
            0x02, 0x18, 0x00, 0x03, 0x06, 0x05, 0x00, 0x00, 0x2A, 0x01, 0xF4, 0x2F, 0x41, 0x31, 0x7B, 0x00, 0x01, 0x00, 0x00, 0x0B, 0x00, 0x03,
        ]
        let crc = CRC16.ibm3740.checksum(frame)
        frame += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        XCTAssertEqual(frame.count, 24)
        let block = frame + [UInt8](repeating: 0, count: 488)
        let message = try VerioFrame.decode(block, reply: "reply")
        let record = try VerioRecord(payload: try VerioFrame.payload(message, command: "READ RECORD 0", reply: "reply"), index: 0)
        XCTAssertEqual(record.inverseNumber, 5)
        XCTAssertFalse(record.isControlSolution)
        XCTAssertEqual(record.lifetimeCounter, 298)
        XCTAssertEqual(record.meterSeconds, 826_355_700)
        XCTAssertEqual(record.milligramsPerDeciliter, 123)
        XCTAssertEqual(record.meal, 1)
        XCTAssertEqual(record.payload, Array(frame[5..<21]))

        var session = VerioSession()
        try session.absorb(.record(0), message: message, hostTime: nil, reply: "reply")
        XCTAssertEqual(session.records[0], record)
    }

    func testDamagedFramesNameTheReplyAndByte() {
        let good = VerioFrame.block([0x03, 0x06, 0x05, 0x00])
        var badCRC = good
        badCRC[9] ^= 0xFF
        XCTAssertThrowsError(try VerioFrame.decode(badCRC, reply: "reply to READ RECORD COUNT (block 3)")) {
            XCTAssertEqual(
                ($0 as? VerioError)?.description,
                "reply to READ RECORD COUNT (block 3) fails its CRC-16/CCITT-FALSE: it carries 0x\(hex(badCRC[9], badCRC[8])), its bytes give 0x\(hex(good[9], good[8]))"
            )
        }
        var noSTX = good
        noSTX[0] = 0x00
        XCTAssertThrowsError(try VerioFrame.decode(noSTX, reply: "reply")) {
            XCTAssertEqual(($0 as? VerioError)?.description, "malformed reply at byte 0: starts with 0x00, not STX (0x02)")
        }
        var long = good
        long[1] = 0x02
        long[2] = 0x02
        XCTAssertThrowsError(try VerioFrame.decode(long, reply: "reply")) {
            XCTAssertEqual(($0 as? VerioError)?.description, "malformed reply at byte 1: length 514 does not fit the 512-byte block")
        }
        var noETX = good
        noETX[1] = 0x09
        XCTAssertThrowsError(try VerioFrame.decode(noETX, reply: "reply")) {
            XCTAssertEqual(($0 as? VerioError)?.description, "malformed reply at byte 6: 0x\(hex(good[6])) where the length puts ETX (0x03)")
        }
        XCTAssertThrowsError(try VerioFrame.payload([0x03, 0x15], command: "READ RTC", reply: "reply")) {
            XCTAssertEqual(($0 as? VerioError)?.description, "the meter refused READ RTC with status 0x15")
        }
        XCTAssertThrowsError(try VerioRecord(payload: [0x00, 0x00, 0x00][...], index: 7)) {
            XCTAssertEqual(($0 as? VerioError)?.description, "record 7: 3 bytes after the status, a record holds at least 12")
        }
    }

    private func hex(_ bytes: UInt8...) -> String { bytes.map { String(format: "%02X", $0) }.joined() }
}
