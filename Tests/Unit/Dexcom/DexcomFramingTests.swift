import Drivers
import TestSupport
import XCTest

final class DexcomFramingTests: XCTestCase {
    /// The request packets ecc1/dexcom asserts (fixtures/dexcom/ecc1/command-packets.txt).
    func testRequestEncodingMatchesRecordedPackets() throws {
        let text = try String(contentsOf: Fixtures.url("dexcom/ecc1/command-packets.txt"), encoding: .utf8)
        let expected = text.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains("|") }.map { line in
            hexBytes(String(line.split(separator: "|")[2]))
        }
        XCTAssertEqual(expected.count, 4)
        XCTAssertEqual(DexcomPacket.request(.ping), expected[0])
        XCTAssertEqual(DexcomPacket.request(.readTransmitterID), expected[1])
        XCTAssertEqual(DexcomPacket.request(.readDatabasePageRange, payload: [4]), expected[2])
        XCTAssertEqual(DexcomPacket.request(.readDatabasePages, payload: [5, 0x26, 0, 0, 0, 1]), expected[3])
    }

    /// Every outgoing packet is built from `DexcomCommand`: only read commands can be made.
    func testOnlyReadCommandsCanBeEncoded() {
        let destructive: [UInt8] = [0x1A, 0x1C, 0x1E, 0x20, 0x24, 0x26, 0x28, 0x2A, 0x2D, 0x2E, 0x2F, 0x3C]
        for id in destructive {
            XCTAssertNil(DexcomCommand(rawValue: id), "command 0x\(String(id, radix: 16)) must not be sendable")
        }
        // Dexcom Studio's undocumented 0x33 is not sendable either.
        XCTAssertNil(DexcomCommand(rawValue: 0x33))
        let allowed = Set(DexcomCommand.allCases.map(\.rawValue))
        XCTAssertEqual(allowed.count, 21)
        XCTAssertEqual(
            allowed,
            [0x0A, 0x0B, 0x0F, 0x10, 0x11, 0x12, 0x19, 0x1B, 0x1D, 0x1F, 0x21, 0x22, 0x23, 0x25, 0x27, 0x29, 0x2B, 0x30, 0x31, 0x36, 0x3B])
        for id in UInt8.min...UInt8.max where !allowed.contains(id) {
            XCTAssertNil(DexcomCommand(rawValue: id))
        }
    }

    func testReplyAssemblyAcrossTransfers() throws {
        // Page range of EGV: first page 1242, last 1472 (cgm-usb.md §1.2).
        let reply = hexBytes("01 0E 00 01 DA 04 00 00 C0 05 00 00 27 85")
        var assembler = DexcomPacketAssembler(location: "test reply")
        assembler.append(Array(reply[0..<5]))
        XCTAssertNil(try assembler.nextPacket())
        XCTAssertEqual(assembler.pendingLength, 14)
        assembler.append(Array(reply[5...]))
        let packet = try XCTUnwrap(try assembler.nextPacket())
        XCTAssertEqual(packet.code, 1)
        XCTAssertEqual(packet.payload, [0xDA, 0x04, 0, 0, 0xC0, 0x05, 0, 0])
        XCTAssertEqual(assembler.bufferedCount, 0)
    }

    func testPacketCRCMismatchNamesBothValues() {
        var bytes = hexBytes("01 0E 00 01 DA 04 00 00 C0 05 00 00 27 85")
        bytes[5] ^= 0x01
        XCTAssertThrowsError(try DexcomPacket.decode(bytes, location: "reply to ReadDatabasePageRange(EGVData)")) { error in
            guard case DexcomError.packetCRCMismatch(let location, _, let found) = error else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(found, 0x8527)
            XCTAssertEqual(location, "reply to ReadDatabasePageRange(EGVData)")
            XCTAssertTrue("\(error)".contains("0x8527"), "\(error)")
        }
    }

    func testShortAndMalformedFrames() {
        XCTAssertThrowsError(try DexcomPacket.decode([0x01, 0x06, 0x00, 0x01], location: "reply")) { error in
            guard case DexcomError.incompleteReply(_, 4, 6) = error else { return XCTFail("unexpected \(error)") }
        }
        XCTAssertThrowsError(try DexcomPacket.decode([0x02, 0x06, 0x00, 0x01, 0x35, 0xD4], location: "reply")) { error in
            guard case DexcomError.malformedPacket = error else { return XCTFail("unexpected \(error)") }
        }
        XCTAssertThrowsError(try DexcomPacket.decode([0x01, 0x03, 0x00, 0x01, 0x35, 0xD4], location: "reply")) { error in
            guard case DexcomError.malformedPacket = error else { return XCTFail("unexpected \(error)") }
        }
    }
}
