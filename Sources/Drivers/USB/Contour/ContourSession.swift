import Foundation
import Model
import Pipeline

/// Everything read from one Contour transfer: the frames in order, with retransmissions
/// recognised by their repeated frame number, cut into records.
public struct ContourSession: Sendable {
    package var header: ContourHeader?
    /// The host's clock when the header (which carries the meter's clock) arrived.
    package var headerHostTime: Date?
    /// Results by sequence number.
    package var results: [Int: ContourResult] = [:]
    /// Whether the terminator record `L|…` arrived.
    package var terminated = false
    package var retransmittedFrames = 0
    /// Records of kinds not decoded (patient, order, comment …), by letter.
    package var otherRecords: [String: Int] = [:]

    private var lastFrameNumber: UInt8?
    private var text: [UInt8] = []

    public init() {}

    /// Takes in one verified frame.
    public mutating func absorb(_ frame: ASTMFrame, hostTime: Date?) throws(ContourError) {
        if frame.number == lastFrameNumber {
            retransmittedFrames += 1
            return
        }
        lastFrameNumber = frame.number
        text += frame.text
        while let end = text.firstIndex(of: 0x0D) {
            let record = String(decoding: text[..<end], as: UTF8.self)
            text.removeFirst(end + 1)
            try absorb(record: record, hostTime: hostTime)
        }
    }

    private mutating func absorb(record: String, hostTime: Date?) throws(ContourError) {
        switch record.first {
        case "H"?:
            header = try ContourHeader(record)
            headerHostTime = hostTime
        case "R"?:
            let result = try ContourResult(record, delimiters: header?.delimiters ?? ASTMDelimiters())
            results[result.sequence] = result
        case "L"?:
            terminated = true
        case let letter?:
            otherRecords[String(letter), default: 0] += 1
        case nil:
            break
        }
    }

    /// The glucose results as device-neutral records: control-solution results and carb/insulin
    /// entries are counted, not stored; `<`/`>` become LO/HI flags.
    public func normalised() throws(ContourError) -> GlucoseDownload {
        guard let header else { throw .noHeader }
        var glucose: [DeviceGlucoseRecord] = []
        var events: [String: Int] = [:]
        for result in results.values.sorted(by: { $0.sequence < $1.sequence }) {
            guard result.type == "Glucose" else {
                events["\(result.type.lowercased())-entry", default: 0] += 1
                continue
            }
            if result.isControlSolution {
                events["control-solution", default: 0] += 1
                continue
            }
            let unit: GlucoseUnit
            switch result.unitText {
            case "mg/dL": unit = .milligramsPerDeciliter
            case "mmol/L": unit = .millimolesPerLiter
            default: throw .malformedRecord(record: "R|\(result.sequence)|…", reason: "unknown unit \"\(result.unitText)\"")
            }
            var record = DeviceGlucoseRecord(
                stream: "result", index: Int64(result.sequence), deviceSeconds: result.time, displaySeconds: result.time,
                value: result.value, unit: unit, kind: .fingerstick,
                flag: result.isBelowRange ? .belowRange : result.isAboveRange ? .aboveRange : nil, note: result.note)
            // Sequence numbers restart when the meter's memory is cleared: the time keeps keys apart.
            record.recordKey = "result:\(result.sequence)@\(result.timeText)"
            glucose.append(record)
        }
        var notes: [String] = []
        if retransmittedFrames > 0 {
            notes.append("\(retransmittedFrames) retransmitted frame\(retransmittedFrames == 1 ? "" : "s") recognised and skipped")
        }
        if !terminated { notes.append("the transfer ended without the terminator record") }
        return GlucoseDownload(
            source: DeviceSource(family: ContourDriver.family, serial: header.serial, model: header.product),
            clock: DeviceClock(
                epoch: Date(timeIntervalSince1970: 0), basis: .localWallClock, deviceNow: header.clock, hostNow: headerHostTime,
                resolution: header.clockHasSeconds ? 1 : 60),
            glucose: glucose,
            recordsRead: results.count,
            events: events.sorted { $0.key < $1.key }.map { ImportEvent(name: $0.key, count: $0.value) },
            cursors: results.keys.max().map { ["result": Int64($0)] } ?? [:],
            notes: notes)
    }
}
