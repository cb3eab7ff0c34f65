import Checksums
import Drivers
import Foundation
import Model
import TestSupport
import XCTest

final class DexcomNormaliseTests: XCTestCase {
    /// A session holding the real G4 Share EGV page (and the ecc1 manufacturing page for a serial).
    func g4ShareSession() throws -> DexcomDownload {
        var session = DexcomDownload()
        let manufacturing = hexBytes(try String(contentsOf: Fixtures.url("dexcom/ecc1/0.0.data"), encoding: .utf8))
        try session.absorb(
            request: DexcomPacket(code: DexcomCommand.readDatabasePages.rawValue, payload: [0, 0, 0, 0, 0, 1]),
            reply: DexcomPacket(code: 1, payload: manufacturing), hostTime: nil, where: "in the test")
        let reply = try DexcomPacket.decode(
            hexBytes(try String(contentsOf: Fixtures.url("dexcom/g4sharespy/egv-page-1416.packet.hex"), encoding: .utf8)),
            location: "reply")
        try session.absorb(
            request: DexcomPacket(code: DexcomCommand.readDatabasePages.rawValue, payload: [4, 0x88, 0x05, 0, 0, 1]),
            reply: reply, hostTime: nil, where: "in the test")
        return session
    }

    func testDisplayOnlyRecordsBecomeEventsNotReadings() throws {
        let download = try DexcomDriver.normalise(try g4ShareSession())
        XCTAssertEqual(download.source, DeviceSource(family: "dexcom", serial: "SM44792675", model: nil))
        XCTAssertEqual(download.recordsRead, 26)
        XCTAssertEqual(download.glucose.count, 25)
        XCTAssertEqual(download.events, [ImportEvent(name: "display-only", count: 1)])
        XCTAssertEqual(download.cursors, ["egv": 53833])
        let first = try XCTUnwrap(download.glucose.first)
        XCTAssertEqual(first.recordKey, "egv:53808")
        XCTAssertEqual(first.value, 89)
        XCTAssertEqual(first.deviceSeconds, 238_472_962)
        XCTAssertEqual(first.displaySeconds, 238_451_671)
        XCTAssertEqual(first.trend, .fortyFiveDown)
        XCTAssertEqual(first.noise, 1)
        XCTAssertEqual(first.kind, .sensor)
        XCTAssertNil(first.flag)
        XCTAssertEqual(download.clock.basis, .universal)
        XCTAssertEqual(download.clock.epoch, Date(timeIntervalSince1970: 1_230_768_000))
        XCTAssertNil(download.clock.hostNow)
    }

    func testWithoutManufacturingRecordTheReceiverIsUnknown() throws {
        var session = try g4ShareSession()
        session.manufacturing = [:]
        XCTAssertThrowsError(try DexcomDriver.normalise(session)) { error in
            guard case DexcomError.noSerialNumber = error else { return XCTFail("unexpected \(error)") }
        }
    }

    /// G5 (revision 4, 23 bytes) and G6 (revision 5, 25 bytes) EGV layouts. No raw G5/G6 pages are
    /// public, so these records are built to the layout Tidepool's dexcomDriver.js parseEgvRecords
    /// reads (https://github.com/tidepool-org/uploader).
    func testG5AndG6RecordLayouts() throws {
        for (revision, length) in [(UInt8(4), 23), (UInt8(5), 25)] {
            var record = [UInt8](repeating: 0, count: length - 2)
            record.replaceSubrange(0..<4, with: UInt32(400_000_000).littleEndianBytes)
            record.replaceSubrange(4..<8, with: UInt32(399_990_000).littleEndianBytes)
            record.replaceSubrange(8..<10, with: UInt16(0x4000 | 142).littleEndianBytes)  // computed on transmitter
            record[19] = 0x23  // noise 2, trend 3
            record.append(contentsOf: CRC16.xmodem.checksum(record).littleEndianBytes)
            var page = UInt32(7).littleEndianBytes + UInt32(1).littleEndianBytes + [4, revision] + UInt32(9).littleEndianBytes
            page += [UInt8](repeating: 0, count: 12)
            page += CRC16.xmodem.checksum(page).littleEndianBytes
            page += record
            page += [UInt8](repeating: 0xFF, count: 528 - page.count)
            let parsed = try DexcomPage(page[...]) { DexcomRecordLayout.defaultLength(partition: $0, revision: $1) }
            XCTAssertEqual(parsed.records.map(\.count), [length])
            let egv = DexcomEGVRecord(parsed.records[0], index: 7, page: 9)
            XCTAssertEqual(egv.glucose, 142)
            XCTAssertFalse(egv.isDisplayOnly)
            XCTAssertEqual(egv.trend, 3)
            XCTAssertEqual(egv.noise, 2)
            XCTAssertEqual(egv.systemSeconds, 400_000_000)
        }
    }

    func testSpecialValueNames() {
        XCTAssertEqual(
            [0, 1, 2, 3, 5, 6, 9, 10, 12, 17].map { DexcomSpecialValue($0).description },
            [
                "NONE", "SENSOR_NOT_ACTIVE", "MINIMAL_DEVIATION", "NO_ANTENNA", "SENSOR_NOT_CALIBRATED", "COUNTS_DEVIATION",
                "ABSOLUTE_DEVIATION", "POWER_DEVIATION", "BAD_RF", "SPECIAL_VALUE_17",
            ])
    }
}
