/// Seconds since 2009-01-01T00:00:00, the receiver's time base.
package let dexcomEpochOffsetFrom1970: Int64 = 1_230_768_000

/// An estimated glucose value (EGV) record. Revisions 1–3 are 13 bytes (G4); revision 4 is
/// 23 bytes (G5); revision 5 is 25 bytes (touchscreen G5, G6). Only the fields all sources agree
/// on are decoded: the two clocks, the glucose word and the trend byte.
package struct DexcomEGVRecord: DexcomIndexedRecord, Equatable {
    /// The running record index.
    package var index: UInt32
    package var page: UInt32
    /// The receiver's internal clock, seconds since 2009-01-01.
    package var systemSeconds: UInt32
    /// The user's wall clock as displayed, seconds since 2009-01-01, no zone.
    package var displaySeconds: UInt32
    package var glucoseWord: UInt16
    package var trendByte: UInt8

    package init(_ record: ArraySlice<UInt8>, index: UInt32, page: UInt32) {
        self.index = index
        self.page = page
        systemSeconds = record.u32le(at: 0)
        displaySeconds = record.u32le(at: 4)
        glucoseWord = record.u16le(at: 8)
        trendByte = record.count == 13 ? record[record.startIndex + 10] : record[record.startIndex + 19]
    }

    /// mg/dL (the receiver stores nothing else), or a special value below 20.
    package var glucose: Int { Int(glucoseWord & 0x03FF) }
    /// A value recomputed for display after a calibration; it repeats a normal record.
    package var isDisplayOnly: Bool { glucoseWord & 0x8000 != 0 }
    /// The trend arrow code, 0–9.
    package var trend: UInt8 { trendByte & 0x0F }
    /// The noise grade, 0–6.
    package var noise: UInt8 { (trendByte & 0x70) >> 4 }
    /// The sensor state a value below 20 stands for, when it is one.
    package var specialValue: DexcomSpecialValue? { glucose < 20 ? DexcomSpecialValue(glucose) : nil }
}

/// Glucose values below 20 are receiver states, not readings.
package struct DexcomSpecialValue: Sendable, Equatable, CustomStringConvertible {
    package var code: Int

    package init(_ code: Int) { self.code = code }

    package var description: String {
        switch code {
        case 0: "NONE"
        case 1: "SENSOR_NOT_ACTIVE"
        case 2: "MINIMAL_DEVIATION"
        case 3: "NO_ANTENNA"
        case 5: "SENSOR_NOT_CALIBRATED"
        case 6: "COUNTS_DEVIATION"
        case 9: "ABSOLUTE_DEVIATION"
        case 10: "POWER_DEVIATION"
        case 12: "BAD_RF"
        default: "SPECIAL_VALUE_\(code)"
        }
    }
}

/// A fingerstick entered into the receiver (a calibration). Revision 1 is 16 bytes; revision 3
/// (G5/G6) is 21 bytes, read with Tidepool's layout (value, entry type, meter time).
package struct DexcomMeterRecord: DexcomIndexedRecord, Equatable {
    package var index: UInt32
    package var page: UInt32
    package var systemSeconds: UInt32
    package var displaySeconds: UInt32
    package var mgdl: UInt16
    /// The time of the fingerstick on the receiver's internal clock; the record itself is
    /// stamped about 30 s later, when it was entered.
    package var meterSeconds: UInt32

    package init(_ record: ArraySlice<UInt8>, index: UInt32, page: UInt32) {
        self.index = index
        self.page = page
        systemSeconds = record.u32le(at: 0)
        displaySeconds = record.u32le(at: 4)
        mgdl = record.u16le(at: 8)
        meterSeconds = record.count >= 21 ? record.u32le(at: 11) : record.u32le(at: 10)
    }
}

/// A record holding an XML element (manufacturing data, firmware parameters).
package struct DexcomXMLRecord: Sendable, Equatable {
    package var systemSeconds: UInt32
    package var displaySeconds: UInt32
    package var attributes: [String: String]

    package init(_ record: ArraySlice<UInt8>) {
        systemSeconds = record.u32le(at: 0)
        displaySeconds = record.u32le(at: 4)
        attributes = DexcomXML.attributes(of: record.dropFirst(8).dropLast(2))
    }
}

/// A record of a partition that counts its records: EGV and meter records.
package protocol DexcomIndexedRecord: Sendable {
    /// The record's running index in its partition.
    var index: UInt32 { get }
}

/// A partition's records by running index. They are kept as the pages brought them, a record
/// read again replacing the one read before, and put in index order once, when asked: a page's
/// records have consecutive indexes, so each goes straight into its place in an array spanning
/// the lowest index to the highest, with no hashing and no sort; indexes spread wider than twice
/// their number (a damaged or hostile capture) are sorted instead.
package struct DexcomRecordsByIndex<Record: DexcomIndexedRecord>: Sendable {
    private var received: [Record] = []

    package init() {}

    package var isEmpty: Bool { received.isEmpty }

    package mutating func reserveCapacity(_ count: Int) {
        received.reserveCapacity(count)
    }

    /// Takes in `record`; one of the same index read before is replaced.
    package mutating func insert(_ record: Record) {
        received.append(record)
    }

    /// One record per index, in index order, each the last one read with its index; worked out
    /// anew, in one pass over every record read, at each call.
    package func inIndexOrder() -> [Record] {
        guard var lowest = received.first?.index else { return [] }
        var highest = lowest
        for record in received {
            lowest = min(lowest, record.index)
            highest = max(highest, record.index)
        }
        guard UInt64(highest - lowest) < 2 * UInt64(received.count) else {
            // Sorted by index, the later of two reads of an index after the earlier, which it
            // replaces.
            let order = received.indices.sorted { (received[$0].index, $0) < (received[$1].index, $1) }
            var records: [Record] = []
            for position in order {
                if let last = records.last, last.index == received[position].index {
                    records[records.count - 1] = received[position]
                } else {
                    records.append(received[position])
                }
            }
            return records
        }
        var places = [Record?](repeating: nil, count: Int(highest - lowest) + 1)
        for record in received {
            places[Int(record.index - lowest)] = record
        }
        return places.compactMap { $0 }
    }
}
