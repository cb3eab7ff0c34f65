import Foundation

/// The detail a Huami band logged during one workout (fetch type 0x06, asked from the workout's
/// start): a stream of 8-byte records, each a type, a time byte and six bytes of values
/// [Gadgetbridge HuamiActivityDetailsParser.java]. glucobridge reads the heart rate: type 1 (one
/// beat rate in its first byte when the other five are 0) and type 0x0B (a beat rate in its first
/// byte, with cadence and step length after it, as Mi Band 6 sends). GPS (0), pause (2), resume
/// (3), speed (4–6), swimming (8) and other records are kept as read and give no rate.
///
/// The time byte is the record's second since the start, modulo 256: each record is after the one
/// before by the difference modulo 256 (a record follows the one before within 255 seconds).
public struct HuamiWorkoutDetail: Sendable, Equatable {
    /// One record: its type, its second since the workout's start, its six bytes of values.
    public struct Record: Sendable, Equatable {
        public var type: UInt8
        public var second: Int
        public var values: [UInt8]

        public init(type: UInt8, second: Int, values: [UInt8]) {
            self.type = type
            self.second = second
            self.values = values
        }

        /// A heart-rate record of the form bands send now: the rate, then five zero bytes.
        public static func heartRate(_ beatsPerMinute: UInt8, at second: Int) -> Record {
            Record(type: heartRateType, second: second, values: [beatsPerMinute, 0, 0, 0, 0, 0])
        }

        /// The beat rate the record holds; nil for another type, a rate of 0 (none measured) or
        /// 255, and for type 1's older form (three offset and rate pairs, not read).
        public var beatsPerMinute: UInt8? {
            let rate: UInt8
            switch type {
            case HuamiWorkoutDetail.heartRateType where values.dropFirst().allSatisfy { $0 == 0 }: rate = values[0]
            case HuamiWorkoutDetail.combinedType: rate = values[0]
            default: return nil
            }
            return rate == 0 || rate == 0xFF ? nil : rate
        }
    }

    public static let heartRateType: UInt8 = 0x01
    public static let combinedType: UInt8 = 0x0B
    static let recordSize = 8
    static let what = "Huami sports detail"

    public var records: [Record]

    public init(records: [Record]) {
        self.records = records
    }

    /// The beat rates measured, by second since the start.
    public var heartRates: [(second: Int, beatsPerMinute: UInt8)] {
        records.compactMap { record in record.beatsPerMinute.map { (record.second, $0) } }
    }

    /// The detail in `bytes` (one fetch's data, the packet counters taken out).
    public static func decode(_ bytes: [UInt8]) throws(HuamiError) -> HuamiWorkoutDetail {
        var records: [Record] = []
        records.reserveCapacity(bytes.count / recordSize)
        var second = 0
        var lastTimeByte = 0
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= recordSize else {
                throw .shortValue(characteristic: what, field: "record", offset: offset, needed: recordSize, available: bytes.count - offset)
            }
            let timeByte = Int(bytes[offset + 1])
            second += (timeByte - lastTimeByte + 256) % 256
            lastTimeByte = timeByte
            records.append(Record(type: bytes[offset], second: second, values: Array(bytes[(offset + 2)..<(offset + recordSize)])))
            offset += recordSize
        }
        return HuamiWorkoutDetail(records: records)
    }

    /// The bytes a band sends for these records (the simulated band). Each record's second must
    /// be at most 255 after the one before.
    public var bytes: [UInt8] {
        records.flatMap { record in [record.type, UInt8(record.second % 256)] + record.values }
    }
}
