import Drivers
import Foundation
import Model
import TestSupport
import XCTest

/// The Libre binary protocol on Tidepool's vectors (BSD-2, in fixtures): ATP CRC32s captured
/// with Wireshark, a factory configuration and four historical records decoding to the CSV the
/// research derived from them.
final class LibreBinaryTests: XCTestCase {
    func fixture(_ name: String) throws -> Data { try Data(contentsOf: Fixtures.url("freestyle/tidepool/\(name)")) }

    /// `{dataLength, opCode, packetLength, data: {data: [bytes]}}` as an AAP packet, its length checked.
    func packet(_ object: [String: Any]) throws -> LibreAAPPacket {
        let data = try XCTUnwrap((object["data"] as? [String: Any])?["data"] as? [Int]).map(UInt8.init)
        XCTAssertEqual(data.count, object["dataLength"] as? Int)
        let packet = LibreAAPPacket(opcode: UInt8(try XCTUnwrap(object["opCode"] as? Int)), data: data)
        XCTAssertEqual(packet.encoded.count, object["packetLength"] as? Int)
        XCTAssertEqual(try LibreAAPPacket.decodeAll(packet.encoded, location: "test"), [packet])
        return packet
    }

    func testATPCRC32Vectors() throws {
        let lines = String(decoding: try fixture("atp-crc32-vectors.txt"), as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
        XCTAssertEqual(lines.count, 19)
        for line in lines {
            let parts = line.split(separator: " ")
            let aap = hexBytes(String(parts[0]))
            let expected = UInt32(parts[1].dropFirst(2), radix: 16)!
            XCTAssertEqual(LibreBinary.atpCRC32(aap), expected, String(line))
            let frame = LibreATPFrame(sequenceReceive: 3, sequenceTransmit: 4, aap: aap)
            XCTAssertEqual(Array(frame.encoded[2..<6]), expected.littleEndianBytes)
            XCTAssertEqual(try LibreATPFrame.decode(frame.encoded, location: "test"), frame)
        }
        // 81 51 01: one length byte (1), GET_CFG_DATA, table 1.
        XCTAssertEqual(
            try LibreAAPPacket.decodeAll([0x81, 0x51, 0x01, 0x34], location: "t"),
            [LibreAAPPacket(opcode: 0x51, data: [0x01]), LibreAAPPacket(opcode: 0x34, data: [])])
        // 81 31 06 (GET_DATABASE, table 6) carries 4CF1A7D9, as captured.
        var damaged = LibreATPFrame(sequenceReceive: 0, sequenceTransmit: 1, aap: [0x81, 0x31, 0x06]).encoded
        damaged[6] ^= 0x02
        XCTAssertThrowsError(try LibreATPFrame.decode(damaged, location: WireLocation(packet: 9))) { error in
            XCTAssertEqual(
                "\(error)",
                "ATP frame at capture packet 9 is corrupt: its CRC says 4CF1A7D9 but its bytes give \(String(format: "%08X", LibreBinary.atpCRC32([0x83, 0x31, 0x06])))"
            )
        }
        XCTAssertThrowsError(try LibreAAPPacket.decodeAll([0x85, 0x31, 0x06], location: "in the test")) { error in
            XCTAssertEqual("\(error)", "malformed binary-protocol data in the test: opcode 0x31 claims 5 data bytes but 1 remain")
        }
    }

    func testHistoricalRecordsDecodeToTheExpectedCSV() throws {
        let config = try packet(try XCTUnwrap(JSONSerialization.jsonObject(with: fixture("factory-config.aap.json")) as? [String: Any]))
        XCTAssertEqual(config.opcode, LibreBinary.getConfigData)
        let factory = try LibreFactoryConfiguration(configData: config.data)
        XCTAssertEqual(factory.timeConversion, 1_356_912_000)
        XCTAssertTrue(factory.displaysMilligrams)

        let objects = try XCTUnwrap(JSONSerialization.jsonObject(with: fixture("historical-records.aap.json")) as? [[String: Any]])
        var csv = [
            "table_id,record_number16,record_type,time_valid,reader_time_s,user_time_offset_s,local_wallclock,glucose_mgdl,flag_bits_hex,life_counter_min,data_quality_flags,crc16_hex"
        ]
        for object in objects {
            let packet = try packet(object)
            XCTAssertEqual(packet.opcode, LibreBinary.getDatabase)
            let record = try LibreDatabaseRecord(databaseData: packet.data)
            let fields = try XCTUnwrap(record.historical)
            csv.append(
                [
                    "\(record.table)", "\(record.number)", "\(record.type)", "\(record.timeValid)", "\(record.readerTime)",
                    "\(record.userTimeOffset)",
                    CivilDate.wallClock(record.wallClock(factory)), "\(fields.glucose)", String(format: "%04x", fields.flagBits),
                    "\(fields.lifeMinutes)", "\(fields.qualityFlags)", String(format: "%04x", record.crc),
                ].joined(separator: ","))
        }
        let expected = String(decoding: try fixture("historical-records.expected.csv"), as: UTF8.self)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
        XCTAssertEqual(csv, expected)
    }

    func testDamagedRecordFailsItsCRC() throws {
        let objects = try XCTUnwrap(JSONSerialization.jsonObject(with: fixture("historical-records.aap.json")) as? [[String: Any]])
        var data = try packet(objects[0]).data
        data[13] = 76  // glucose 75 → 76
        XCTAssertThrowsError(try LibreDatabaseRecord(databaseData: data)) { error in
            XCTAssertTrue("\(error)".hasPrefix("table 6 record 37028 is corrupt: its CRC says 0000F845 but its bytes give "), "\(error)")
        }
    }
}
