import Drivers
import Foundation
import TestSupport
import XCTest

/// Decodes the real receiver pages in fixtures/dexcom and checks them against the values their
/// upstream projects assert.
final class DexcomPageTests: XCTestCase {
    func page(_ name: String) throws -> [UInt8] {
        hexBytes(try String(contentsOf: Fixtures.url("dexcom/ecc1/\(name).data"), encoding: .utf8))
    }

    func expected(_ name: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: Fixtures.url("dexcom/ecc1/\(name).json"))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    }

    func decode(_ bytes: [UInt8]) throws -> DexcomPage {
        try DexcomPage(bytes[...]) { DexcomRecordLayout.defaultLength(partition: $0, revision: $1) }
    }

    /// `2015-07-17T22:08:16` from seconds since 2009 (the receiver's clocks carry no zone).
    func wallClock(_ seconds: UInt32) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(dexcomEpochOffsetFrom1970) + TimeInterval(seconds)))
    }

    func testDexcomEpochCheckValues() {
        XCTAssertEqual(wallClock(0x0123_4567), "2009-08-09T22:25:43")
        XCTAssertEqual(wallClock(0x0EDC_BA98), "2016-11-25T22:58:32")
    }

    func testEGVPageRevision2() throws {
        let page = try decode(try page("4.312"))
        XCTAssertEqual(page.header.partition, 4)
        XCTAssertEqual(page.header.revision, 2)
        XCTAssertEqual(page.header.pageNumber, 312)
        XCTAssertEqual(page.header.firstIndex, 11856)
        XCTAssertEqual(page.records.count, 23)
        let records = page.records.enumerated().map { DexcomEGVRecord($1, index: 11856 + UInt32($0), page: 312) }
        // The upstream expectations list records newest first.
        let rows = try expected("4.312").reversed()
        XCTAssertEqual(rows.count, records.count)
        for (record, row) in zip(records, rows) {
            let egv = try XCTUnwrap(row["EGV"] as? [String: Any])
            let stamps = try XCTUnwrap(row["Timestamp"] as? [String: String])
            XCTAssertEqual(record.glucose, egv["Glucose"] as? Int, "record \(record.index)")
            XCTAssertEqual(record.isDisplayOnly, egv["DisplayOnly"] as? Bool)
            XCTAssertEqual(Int(record.noise), egv["Noise"] as? Int)
            XCTAssertEqual(Int(record.trend), egv["Trend"] as? Int)
            XCTAssertEqual(wallClock(record.systemSeconds), String(stamps["SystemTime"]!.prefix(19)))
            XCTAssertEqual(wallClock(record.displaySeconds), String(stamps["DisplayTime"]!.prefix(19)))
        }
        // Spot values: the newest record.
        XCTAssertEqual(records.last?.glucose, 224)
        XCTAssertEqual(records.last?.index, 11878)
    }

    /// G4 Share reply packet: framing, page and every record against the decoded CSV.
    func testFramedEGVReplyFromG4Share() throws {
        let bytes = hexBytes(try String(contentsOf: Fixtures.url("dexcom/g4sharespy/egv-page-1416.packet.hex"), encoding: .utf8))
        XCTAssertEqual(bytes.count, 534)
        let packet = try DexcomPacket.decode(bytes, location: "reply")
        XCTAssertEqual(packet.code, 1)
        let page = try decode(packet.payload)
        XCTAssertEqual(page.header.pageNumber, 1416)
        XCTAssertEqual(page.header.firstIndex, 53808)
        XCTAssertEqual(page.records.count, 26)
        let csv = try String(contentsOf: Fixtures.url("dexcom/g4sharespy/egv-page-1416.expected.csv"), encoding: .utf8)
        let rows = csv.split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
        XCTAssertEqual(rows.count, 26)
        for (i, (bytes, row)) in zip(page.records, rows).enumerated() {
            let record = DexcomEGVRecord(bytes, index: 53808 + UInt32(i), page: 1416)
            XCTAssertEqual(String(record.index), row[0])
            XCTAssertEqual(String(record.systemSeconds), row[1])
            XCTAssertEqual(String(record.displaySeconds), row[2])
            XCTAssertEqual(wallClock(record.displaySeconds), row[3])
            XCTAssertEqual(String(record.glucose), row[5])
            XCTAssertEqual(String(record.isDisplayOnly), row[6])
            XCTAssertEqual(String(record.trendByte, radix: 16), row[7])
            XCTAssertEqual(String(record.trend), row[8])
            XCTAssertEqual(String(record.noise), row[9])
        }
        let last = DexcomEGVRecord(page.records[25], index: 53833, page: 1416)
        XCTAssertTrue(last.isDisplayOnly)
        XCTAssertEqual(last.glucose, 88)
        XCTAssertEqual(last.systemSeconds, 238_480_162)
        // Bit 7 of the trend byte (0x94) is masked off: trend 4, noise 1.
        let flagged = DexcomEGVRecord(page.records[24], index: 53832, page: 1416)
        XCTAssertEqual(flagged.trendByte, 0x94)
        XCTAssertEqual(flagged.trend, 4)
        XCTAssertEqual(flagged.noise, 1)
    }

    func testManufacturingPageGivesSerialNumber() throws {
        let page = try decode(try page("0.0"))
        XCTAssertEqual(page.records.count, 1)
        let xml = DexcomXMLRecord(page.records[0])
        XCTAssertEqual(xml.attributes["SerialNumber"], "SM44792675")
        XCTAssertEqual(xml.attributes["HardwarePartNumber"], "MT20649")
        XCTAssertEqual(xml.attributes["HardwareRevision"], "23")
    }

    /// Sensor and calibration pages of both revisions pass every record CRC with the known layouts.
    func testOtherPartitionsConfirmEveryRecordCRC() throws {
        let cases: [(String, UInt8, UInt8, Int, Int)] = [
            ("3.469", 3, 1, 21, 20), ("5.252", 5, 2, 2, 148), ("5.845", 5, 2, 2, 148),
            ("5.1432", 5, 3, 2, 249), ("5.1432-1", 5, 3, 1, 249),
        ]
        for (name, partition, revision, count, length) in cases {
            let page = try decode(try page(name))
            XCTAssertEqual(page.header.partition, partition, name)
            XCTAssertEqual(page.header.revision, revision, name)
            XCTAssertEqual(page.records.count, count, name)
            XCTAssertEqual(page.records.map(\.count), Array(repeating: length, count: count), name)
        }
    }

    func testCorruptRecordIsNamed() throws {
        var bytes = try page("4.312")
        bytes[28 + 13 * 5 + 8] ^= 0x40  // glucose of the sixth record
        XCTAssertThrowsError(try decode(bytes)) { error in
            guard case DexcomError.recordCRCMismatch(let partition, let page, let record, _, _) = error else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(partition, "EGVData")
            XCTAssertEqual(page, 312)
            XCTAssertEqual(record, 11861)
            XCTAssertEqual("\(error)".hasPrefix("EGVData page 312, record 11861: CRC is"), true, "\(error)")
        }
    }

    func testCorruptHeaderIsNamed() throws {
        var bytes = try page("4.312")
        bytes[4] ^= 0x01  // record count
        XCTAssertThrowsError(try decode(bytes)) { error in
            guard case DexcomError.pageCRCMismatch("EGVData", 312, _, _) = error else {
                return XCTFail("unexpected \(error)")
            }
        }
    }

    func testWrongRecordLengthIsCaughtByRecordCRC() throws {
        let bytes = try page("4.312")
        XCTAssertThrowsError(try DexcomPage(bytes[...]) { _, _ in 20 }) { error in
            guard case DexcomError.recordCRCMismatch = error else { return XCTFail("unexpected \(error)") }
        }
    }

    /// GPL data: read from ../shared only, never copied into the repository.
    func testMeterPageFromSharedVectors() throws {
        guard let url = Fixtures.sharedVector("dexcom/nightscout-android-uploader/pages.hex.txt") else {
            throw XCTSkip("../shared is absent")
        }
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        XCTAssertEqual(lines.count, 6)
        let meter = try decode(hexBytes(String(lines[1])))
        XCTAssertEqual(meter.header.partition, 10)
        XCTAssertEqual(meter.header.firstIndex, 31)
        XCTAssertEqual(meter.records.count, 4)
        let records = meter.records.enumerated().map { DexcomMeterRecord($1, index: 31 + UInt32($0), page: 1) }
        for record in records {
            XCTAssertTrue((20...600).contains(record.mgdl), "meter value \(record.mgdl)")
            // The fingerstick precedes the moment it was entered.
            XCTAssertLessThanOrEqual(record.meterSeconds, record.systemSeconds)
            XCTAssertLessThan(record.systemSeconds - record.meterSeconds, 600)
        }
        let egv = try decode(hexBytes(String(lines[0])))
        XCTAssertEqual(egv.header.pageNumber, 136)
        XCTAssertEqual(egv.records.count, 28)
    }
}
