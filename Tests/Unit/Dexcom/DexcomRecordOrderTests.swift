import Drivers
import XCTest

/// A partition's records as a download collects them (``DexcomRecordsByIndex``): pages arrive
/// newest first, a page may be read twice, and a damaged capture may number its pages anyhow.
final class DexcomRecordOrderTests: XCTestCase {
    /// A 13-byte (G4) EGV record of `glucose` mg/dL.
    private func record(_ index: UInt32, glucose: UInt16) -> DexcomEGVRecord {
        let bytes: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, UInt8(glucose & 0xFF), UInt8(glucose >> 8), 4, 0, 0]
        return DexcomEGVRecord(bytes[...], index: index, page: index / 38)
    }

    private func summary(_ records: [DexcomEGVRecord]) -> [String] {
        records.map { "\($0.index):\($0.glucose)" }
    }

    func testPagesNewestFirstComeOutInIndexOrderAndARereadReplaces() {
        var records = DexcomRecordsByIndex<DexcomEGVRecord>()
        XCTAssertTrue(records.isEmpty)
        XCTAssertEqual(records.inIndexOrder().count, 0)
        for index in UInt32(76)..<114 { records.insert(record(index, glucose: 100)) }
        for index in UInt32(38)..<76 { records.insert(record(index, glucose: 110)) }
        // Page 1 read again, its record 40 changed in between (a display-only rewrite).
        for index in UInt32(38)..<76 { records.insert(record(index, glucose: index == 40 ? 250 : 110)) }
        XCTAssertFalse(records.isEmpty)
        let ordered = records.inIndexOrder()
        XCTAssertEqual(ordered.map(\.index), Array(38..<114))
        XCTAssertEqual(ordered.first { $0.index == 40 }?.glucose, 250)
        XCTAssertEqual(ordered.first { $0.index == 41 }?.glucose, 110)
        XCTAssertEqual(ordered.last?.glucose, 100)
    }

    /// Indexes spread far wider than their number are sorted, not laid out: no array of four
    /// billion places for four records.
    func testIndexesFarApartAreSorted() {
        var records = DexcomRecordsByIndex<DexcomEGVRecord>()
        records.insert(record(5, glucose: 101))
        records.insert(record(UInt32.max, glucose: 102))
        records.insert(record(3, glucose: 103))
        records.insert(record(5, glucose: 104))
        records.insert(record(0, glucose: 105))
        records.insert(record(UInt32.max, glucose: 106))
        XCTAssertEqual(summary(records.inIndexOrder()), ["0:105", "3:103", "5:104", "4294967295:106"])
    }

    /// Gaps up to the records' own number are laid out; one index past that is sorted; both
    /// give the same order.
    func testGapsAtTheEdgeGiveTheSameOrder() {
        for spread in [UInt32(7), 8, 9] {
            var records = DexcomRecordsByIndex<DexcomEGVRecord>()
            for index in [spread, 2, 0, 1] { records.insert(record(index, glucose: UInt16(40 + index))) }
            XCTAssertEqual(summary(records.inIndexOrder()), ["0:40", "1:41", "2:42", "\(spread):\(40 + spread)"], "\(spread)")
        }
    }
}
