import Foundation
import Model
import Pipeline

/// The FreeStyle readers glucobridge knows, by USB product id (vendor 0x1A61).
public enum FreeStyleModel: String, Sendable, CaseIterable {
    case libre = "FreeStyle Libre"
    case librePro = "FreeStyle Libre Pro"
    case neo = "FreeStyle Precision / Optium Neo"
    case insulinx = "FreeStyle InsuLinx"
    case libre2 = "FreeStyle Libre 2"
    case libre3 = "FreeStyle Libre 3"

    package static let vendorID: UInt16 = 0x1A61

    /// The product ids of the model; the InsuLinx is listed as 0x3460 by the tools and reports
    /// 0x3450 in OpenGlucose's capture of one.
    package var productIDs: [UInt16] {
        switch self {
        case .libre: [0x3650]
        case .librePro: [0x3670]
        case .neo: [0x3850]
        case .insulinx: [0x3460, 0x3450]
        case .libre2: [0x3950]
        case .libre3: [0x3960]
        }
    }

    package init?(vendorID: UInt16, productID: UInt16) {
        guard vendorID == Self.vendorID, let model = Self.allCases.first(where: { $0.productIDs.contains(productID) }) else { return nil }
        self = model
    }

    /// Readers whose USB traffic is in the encrypted session (`FreeStyleHandshake`).
    package var isEncrypted: Bool { self == .libre2 || self == .libre3 }

    /// The text command that answers the serial number.
    var serialCommand: String {
        switch self {
        case .libre, .librePro, .libre2, .libre3: "$sn?"
        case .neo, .insulinx: "$serlnum?"
        }
    }

    /// The multi-record commands holding the model's readings.
    var recordCommands: [String] {
        switch self {
        case .libre, .librePro, .libre2, .libre3: ["$history?", "$arresult?"]
        case .neo, .insulinx: ["$result?"]
        }
    }

    /// Libre values at or beyond these are what the reader shows as LO / HI (Tidepool's limits for
    /// Abbott readers); a meter's literal `LO` / `HI` is stored as these numbers with the flag.
    static let lowLimit = 40
    static let highLimit = 500
}

/// The reader's clock as `$date?` and `$time?` gave it.
package struct FreeStyleReaderClock: Sendable, Equatable {
    /// `M, D, YY` as read.
    package var date: [Int]?
    /// `H, M` as read.
    package var time: [Int]?
    /// The host's clock when the `$time?` reply arrived.
    package var hostTime: Date?

    /// Whether the reader says its clock is not set (255 in its fields: the battery ran out).
    package var isUnset: Bool { (date ?? []).contains(FreeStyleClock.unset) || (time ?? []).contains(FreeStyleClock.unset) }

    /// The clock as wall-clock seconds since 1970, when both replies arrived and make a valid time.
    package var seconds: Int64? {
        guard let date, let time, date.count == 3, time.count == 2 else { return nil }
        return FreeStyleClock.wallSeconds(year: date[2], month: date[0], day: date[1], hour: time[0], minute: time[1])
    }
}

/// Everything read from one FreeStyle reader, in the order the replies came.
public struct FreeStyleSession: Sendable {
    /// The model, when the USB product id is known (not in a capture without descriptors).
    package var model: FreeStyleModel?
    /// The serial from the HID serial query (0x05).
    package var hidSerial: String?
    /// The serial from `$serlnum?` / `$sn?`, preferred: the HID one may differ on a Neo.
    package var textSerial: String?
    /// The software version from the HID version query (0x15).
    package var softwareVersion: String?
    package var clock = FreeStyleReaderClock()
    /// Every record row of the records commands, decoded.
    package var entries: [FreeStyleEntry] = []
    /// Text replies whose checksum was verified.
    package var verifiedReplies = 0
    /// Binary-protocol (AAP/ATP) messages seen and not decoded.
    package var binaryMessages = 0
    /// Whether `$arresult?` was answered: the reader's log of its clock changes was read.
    package var readChangeLog = false
    /// Whether the session was encrypted (a Libre 2 or Libre 3, even when the model is not known).
    package var encrypted = false

    public init(model: FreeStyleModel? = nil) {
        self.model = model
    }

    /// Takes in a verified text reply's message for `command`. Records commands are parsed whole
    /// before anything of them is kept, so a bad row leaves the session as it was.
    public mutating func absorb(textReply message: [UInt8], command: String, hostTime: Date?) throws(FreeStyleError) {
        verifiedReplies += 1
        let rowParser: ((FreeStyleRow) throws(FreeStyleError) -> FreeStyleEntry)?
        switch command {
        case "$serlnum?", "$sn?":
            let serial = Self.firstLine(message)
            if !serial.isEmpty { textSerial = serial }
            return
        case "$swver?":
            let version = Self.firstLine(message)
            if !version.isEmpty { softwareVersion = version }
            return
        case "$date?":
            clock.date = try Self.numbers(message, count: 3, command: command)
            return
        case "$time?":
            clock.time = try Self.numbers(message, count: 2, command: command)
            clock.hostTime = hostTime
            return
        case "$history?":
            rowParser = { [model, encrypted] row throws(FreeStyleError) in try FreeStyleRows.history(row, model: model, encrypted: encrypted) }
        case "$arresult?":
            rowParser = { [model, encrypted] row throws(FreeStyleError) in try FreeStyleRows.arresult(row, model: model, encrypted: encrypted) }
            readChangeLog = true
        case "$result?": rowParser = FreeStyleRows.result
        default: rowParser = nil
        }
        guard let rowParser else { return }
        var parsed: [FreeStyleEntry] = []
        for (index, fields) in try FreeStyleText.records(in: message, command: command).enumerated() {
            parsed.append(try rowParser(FreeStyleRow(command: command, number: index + 1, fields: fields)))
        }
        entries += parsed
    }

    /// The readings as device-neutral records. Ketone strips, rows the reader flagged as errors,
    /// time changes and other rows are counted, not stored; time changes are also listed in the notes.
    /// The reader as a source: its family, serial and model.
    package func source() throws(FreeStyleError) -> DeviceSource {
        guard let serial = textSerial ?? hidSerial, !serial.isEmpty else { throw .noSerialNumber }
        return DeviceSource(family: FreeStyleDriver.family, serial: serial, model: model?.rawValue)
    }

    /// The record number of a row, and the stream it counts in; nil for rows without one.
    private static func number(of entry: FreeStyleEntry) -> (stream: RecordStream, id: Int64)? {
        switch entry {
        case .reading(let reading): (reading.stream, reading.id)
        case .timeChange(let change): ("arresult", change.id)
        case .flagged(_, let record), .other(_, let record): record.map { ($0.stream, $0.id) }
        }
    }

    /// With `cursors` (the highest record number stored per stream), only the rows after them
    /// are taken: a re-import reads only new records. Rows without a record number are always
    /// counted.
    public func normalised(after cursors: RecordCursors = [:]) throws(FreeStyleError) -> GlucoseDownload {
        let source = try source()
        var glucose: [DeviceGlucoseRecord] = []
        var events: [String: Int] = [:]
        var cursors = cursors.only(["history", "arresult", "result"])
        let after = cursors
        var notes: [String] = []
        var changes: [DeviceClockChange] = []
        let entries = entries.filter { entry in
            guard let (stream, id) = Self.number(of: entry), let cursor = after[stream] else { return true }
            return id > cursor
        }
        if !after.isEmpty, entries.count < self.entries.count {
            notes.append(
                "\(self.entries.count - entries.count) records already imported (up to \(after.map { "\($0.stream):\($0.index)" }.joined(separator: ", "))) were skipped"
            )
        }
        for entry in entries {
            if let (stream, id) = Self.number(of: entry) { cursors.raise(stream, to: id) }
            switch entry {
            case .reading(let reading):
                if let record = Self.glucoseRecord(reading) {
                    glucose.append(record)
                } else {
                    events["ketone-strip", default: 0] += 1
                }
            case .flagged(let event, _), .other(let event, _):
                events[event, default: 0] += 1
            case .timeChange(let change):
                events["time-change", default: 0] += 1
                changes.append(DeviceClockChange(stream: "arresult", index: change.id, from: change.from, to: change.to))
            }
        }
        var deviceNow = clock.seconds
        if clock.isUnset {
            deviceNow = nil
            notes.append(
                "the reader's clock is not set (it answers 255, as after losing power): it was not trusted, and its offset from the host clock is unknown"
            )
        } else if deviceNow == nil, clock.date != nil || clock.time != nil {
            notes.append("the reader's clock did not give a valid date and time; record times were read as local wall-clock time")
        }
        if binaryMessages > 0 {
            notes.append("\(binaryMessages) binary-protocol message\(binaryMessages == 1 ? "" : "s") not decoded")
        }
        return GlucoseDownload(
            source: source,
            clock: DeviceClock(
                epoch: Date(timeIntervalSince1970: 0), basis: .localWallClock, deviceNow: deviceNow,
                hostNow: deviceNow == nil ? nil : clock.hostTime, resolution: 60),
            glucose: glucose,
            recordsRead: entries.count,
            events: events.sorted { $0.key < $1.key }.map { ImportEvent(name: $0.key, count: $0.value) },
            cursors: cursors,
            notes: notes,
            clockChanges: readChangeLog ? changes.sorted { $0.index < $1.index } : nil)
    }

    /// The ketone results, in mmol/L (the reader keeps them × 18), with their wall-clock times.
    package var ketones: [(time: Int64, mmol: Double)] {
        entries.compactMap {
            guard case .reading(let reading) = $0, reading.kind == .ketone, let value = reading.value else { return nil }
            return (reading.time, Double(value) / 18)
        }
    }

    private static func glucoseRecord(_ reading: FreeStyleReading) -> DeviceGlucoseRecord? {
        let kind: ReadingKind
        switch reading.kind {
        case .ketone: return nil
        case .sensorHistory, .sensorScan: kind = .sensor
        case .bloodGlucose: kind = .fingerstick
        }
        let value: Int
        var flag = reading.literal
        switch reading.literal {
        case .aboveRange?: value = FreeStyleModel.highLimit
        case .belowRange?: value = FreeStyleModel.lowLimit
        case nil:
            value = reading.value ?? 0
            if reading.stream != "result" {
                flag = value <= FreeStyleModel.lowLimit ? .belowRange : value >= FreeStyleModel.highLimit ? .aboveRange : nil
            }
        }
        return DeviceGlucoseRecord(
            stream: reading.stream, index: reading.id, deviceSeconds: reading.time, displaySeconds: reading.time,
            value: Double(value), kind: kind, flag: flag, trend: reading.trend.flatMap(trend))
    }

    /// Libre arrows: 1 falling fast, 2 falling, 3 steady, 4 rising, 5 rising fast.
    private static func trend(_ arrow: Int) -> Trend? {
        switch arrow {
        case 1: .singleDown
        case 2: .fortyFiveDown
        case 3: .flat
        case 4: .fortyFiveUp
        case 5: .singleUp
        default: nil
        }
    }

    /// The message's first line, trimmed.
    static func firstLine(_ message: [UInt8]) -> String {
        String(decoding: message.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    /// `a,b,c` on the first line: exactly `count` whole numbers.
    static func numbers(_ message: [UInt8], count: Int, command: String) throws(FreeStyleError) -> [Int] {
        let line = firstLine(message)
        let numbers = line.split(separator: ",", omittingEmptySubsequences: false).compactMap { Int($0) }
        guard numbers.count == count, line.split(separator: ",", omittingEmptySubsequences: false).count == count else {
            throw .malformedReply(command: command, reason: "\"\(line.prefix(30))\" is not \(count) comma-separated numbers")
        }
        return numbers
    }
}
