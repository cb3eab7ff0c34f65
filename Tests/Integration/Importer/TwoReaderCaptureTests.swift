import Foundation
import GRDB
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import XCTest

/// A usbmon capture of a whole bus (`tcpdump -i usbmon3`) while a FreeStyle Libre (address 12)
/// and a Contour (address 7) were both read: both are imported, each as its own device.
final class TwoReaderCaptureTests: XCTestCase {
    /// The records of two usbmon pcaps merged in time order under the first one's file header.
    static func merge(_ first: URL, _ second: URL, into output: URL) throws {
        var records: [(time: UInt64, bytes: Data)] = []
        var header = Data()
        for url in [first, second] {
            let data = try Data(contentsOf: url)
            header = header.isEmpty ? data.prefix(24) : header
            var offset = 24
            func u32(_ at: Int) -> UInt32 { data[at..<(at + 4)].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
            while offset + 16 <= data.count {
                let length = Int(u32(offset + 8))
                let time = UInt64(u32(offset)) * 1_000_000 + UInt64(u32(offset + 4))
                records.append((time, data[offset..<(offset + 16 + length)]))
                offset += 16 + length
            }
        }
        var merged = header
        for record in records.enumerated().sorted(by: { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }) {
            merged.append(record.element.bytes)
        }
        try merged.write(to: output)
    }

    /// A whole-bus capture of the two readers, the Contour's clock reading `contourClock`.
    static func capture(contourClock: String = "202603101000") throws -> URL {
        let folder = try Fixtures.temporaryDirectory()
        let host = utc("2026-03-10 14:00:40")
        let libre = FreeStyleReaderSimulator(
            productID: 0x3650, outEndpoint: false, serial: "JCMV000-BUS01", softwareVersion: "2.3.2", date: "3,10,26", time: "10,0",
            records: ["$history?": ["2,12,3,10,26,9,0,0,1,0,0,0,0,140,30,0", "1,12,3,10,26,8,45,0,1,0,0,0,0,150,15,0"], "$arresult?": []],
            hostClock: WallClockTimeTests.clock(from: host))
        let contour = ContourMeterSimulator(
            serial: "7390-0000003", unit: 0, clock: contourClock, results: ["R|1|^^^Glucose|99|mg/dL^P||||202603100930"],
            hostClock: WallClockTimeTests.clock(from: host.addingTimeInterval(0.5)))
        let libreCapture = folder.appendingPathComponent("libre.pcap")
        let contourCapture = folder.appendingPathComponent("contour.pcap")
        try FreeStyleDemo.record(libre, to: libreCapture)
        try ContourMeterSimulator.record(contour, to: contourCapture)
        let bus = folder.appendingPathComponent("usbmon3.pcap")
        try Self.merge(libreCapture, contourCapture, into: bus)
        return bus
    }

    func testBothReadersAreImported() throws {
        let bus = try Self.capture()
        let (store, _) = try makeStore(zone: "America/New_York")
        let importer = Importer(store: store)
        let outcomes = try importer.run(.capture(bus)).devices.flatMap(\.glucose)
        XCTAssertEqual(Set(outcomes.map(\.source.family)), ["freestyle", "contour"])
        XCTAssertEqual(outcomes.map(\.summary.added).reduce(0, +), 3)
        XCTAssertEqual(outcomes.map(\.replayMode), [.conversation, .conversation])
        XCTAssertEqual(try store.glucose().map(\.time), [utc("2026-03-10 12:45:00"), utc("2026-03-10 13:00:00"), utc("2026-03-10 13:30:00")])
        XCTAssertThrowsError(try importer.replayOne(captureAt: bus), "one device was asked for")

        let again = try importer.run(.capture(bus)).devices.flatMap(\.glucose)
        XCTAssertEqual(again.map(\.summary.added), [0, 0])
        XCTAssertEqual(try store.glucose().count, 3)
    }

    /// Every device of a capture is checked before any is written: when the second reader's
    /// clock would place its readings in 2051 (it reads 2001 while the host reads 2026), the
    /// first reader's readings are not stored either, and the error names the device at fault.
    func testAnImpossibleClockOnTheSecondReaderStoresNeither() throws {
        let bus = try Self.capture(contourClock: "200101011000")
        let (store, _) = try makeStore(zone: "America/New_York")
        let importer = Importer(store: store)
        XCTAssertThrowsError(try importer.run(.capture(bus))) { error in
            let message = "\(error)"
            XCTAssertTrue(message.hasPrefix("usbmon3.pcap, device 2 of 2 ("), message)
            XCTAssertTrue(message.contains("placing the records by it would put all 1 of them at 2051-"), message)
            XCTAssertTrue(message.hasSuffix("; none of the 2 devices it records was stored"), message)
        }
        XCTAssertEqual(try store.glucose().count, 0, "the FreeStyle reader's two readings were not stored")
        XCTAssertEqual(try store.reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM import_run") }, 0)
        XCTAssertEqual(try store.reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM source") }, 0)

        // The same readers with the Contour's clock right import whole.
        let good = try importer.run(.capture(try Self.capture())).devices.flatMap(\.glucose)
        XCTAssertEqual(good.map(\.summary.added).reduce(0, +), 3)
    }
}
