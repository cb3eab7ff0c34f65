import Foundation
import Model
import Pipeline
import Transport

/// What a Verio said in one conversation, replies taken one at a time, live or from a
/// recording; `normalised()` makes the download of it.
public struct VerioSession: Sendable {
    package var serial: String?
    package var model: String?
    package var software: String?
    /// The unit the meter displays (its records are in mg/dL whatever it displays).
    package var displayUnit: GlucoseUnit?
    package var clock: UInt32?
    package var clockHostTime: Date?
    package var count: Int?
    /// Records by their position (0 the newest).
    package var records: [Int: VerioRecord] = [:]
    /// Whether the host stopped at the records the store already holds.
    package var stoppedAtStored = false

    public init() {}

    /// Seconds from 1970 to the meter's epoch, 2000-01-01.
    package static let epochOffset: Int64 = 946_684_800
    /// Tidepool uploader (`oneTouchVerio.js`) takes 20 mg/dL and below as LO, 600 and above as HI:
    /// the meter's range ends.
    package static let lowest: UInt16 = 20
    package static let highest: UInt16 = 600
    package static let stream: RecordStream = "result"

    /// Takes the reply `message` to `command`.
    public mutating func absorb(_ command: VerioCommand, message: [UInt8], hostTime: Date?, reply: String) throws(VerioError) {
        let payload = try VerioFrame.payload(message, command: command.name, reply: reply)
        func needs(_ length: Int) throws(VerioError) {
            guard payload.count >= length else {
                throw .malformedFrame(
                    reply: reply, offset: 3 + 2 + payload.count, reason: "\(payload.count) bytes after the status, \(length) expected")
            }
        }
        switch command {
        case .query(let selector):
            let text = Self.wideString(payload)
            switch selector {
            case .serial: serial = text
            case .model: model = text
            case .software: software = text
            }
        case .readUnit:
            try needs(1)
            switch payload.first! {
            case 0: displayUnit = .milligramsPerDeciliter
            case 1: displayUnit = .millimolesPerLiter
            case let other:
                throw .malformedFrame(reply: reply, offset: 5, reason: "unit \(Hex.literal(other, digits: 2)), neither 0 (mg/dL) nor 1 (mmol/L)")
            }
        case .readClock:
            try needs(4)
            clock = Array(payload).u32le(at: 0)
            clockHostTime = hostTime
        case .recordCount:
            try needs(2)
            count = Int(Array(payload).u16le(at: 0))
        case .record(let index):
            records[Int(index)] = try VerioRecord(payload: payload, index: Int(index))
        }
    }

    /// A NUL-terminated UTF-16LE string.
    static func wideString(_ bytes: ArraySlice<UInt8>) -> String {
        var units: [UInt16] = []
        var i = bytes.startIndex
        while i + 1 < bytes.endIndex {
            let unit = UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8
            if unit == 0 { break }
            units.append(unit)
            i += 2
        }
        return String(decoding: units, as: UTF16.self).trimmingCharacters(in: " ")
    }

    /// The download: every blood result once, keyed by its lifetime counter; control-solution
    /// results counted.
    public func normalised() throws(VerioError) -> GlucoseDownload {
        guard let serial, !serial.isEmpty else { throw .incomplete(reason: "the meter's serial number was not read") }
        guard let count else { throw .incomplete(reason: "the meter's record count was not read") }
        // Without the meter's clock its records cannot be placed in time the way a whole read
        // places them.
        guard clock != nil else { throw .incomplete(reason: "the meter's clock (READ RTC) was not read") }
        if !stoppedAtStored, records.count < count {
            let missing = (0..<count).first { records[$0] == nil } ?? records.count
            throw .incomplete(reason: "record \(missing) of \(count) was not read")
        }
        var glucose: [DeviceGlucoseRecord] = []
        var controls = 0
        var notes: [String] = []
        for position in records.keys.sorted(by: >) {
            let record = records[position]!
            if record.isControlSolution {
                controls += 1
                continue
            }
            let seconds = Int64(record.meterSeconds) + Self.epochOffset
            let value = record.milligramsPerDeciliter
            glucose.append(
                DeviceGlucoseRecord(
                    stream: Self.stream, index: Int64(record.lifetimeCounter), deviceSeconds: seconds, displaySeconds: seconds,
                    value: Double(value), unit: .milligramsPerDeciliter, kind: .fingerstick,
                    flag: value <= Self.lowest ? .belowRange : value >= Self.highest ? .aboveRange : nil,
                    note: record.meal == 1 ? "before meal" : record.meal == 2 ? "after meal" : nil))
        }
        if count == 0 { notes.append("the meter's memory is empty") }
        if displayUnit == .millimolesPerLiter {
            notes.append("the meter displays mmol/L; its records are in mg/dL and are stored as it sent them")
        }
        return GlucoseDownload(
            source: DeviceSource(family: VerioDriver.family, serial: serial, model: model),
            clock: DeviceClock(
                epoch: Date(timeIntervalSince1970: 0), basis: .localWallClock, deviceNow: clock.map { Int64($0) + Self.epochOffset },
                hostNow: clockHostTime, resolution: 1),
            glucose: glucose,
            recordsRead: records.count,
            events: controls > 0 ? [ImportEvent(name: "control-solution", count: controls)] : [],
            cursors: records.values.map { Int64($0.lifetimeCounter) }.max().map { [Self.stream: $0] } ?? [:],
            notes: notes)
    }
}
