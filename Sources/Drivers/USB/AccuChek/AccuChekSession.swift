import Foundation
import Model
import Pipeline
import Transport

/// One stored result of the PM-store segment: 12 bytes, the layout Tidepool uploader reads
/// (`accuChekUSB.js`, `parseData`): an 8-byte BCD AbsoluteTime (the meter's local clock), the
/// glucose as an SFLOAT (+INF is HI, −INF is LO) and a 16-bit measurement status.
public struct AccuChekEntry: Sendable, Equatable {
    package static let size = 12
    /// The entry's position in the segment as the meter numbers it.
    package var position: Int64
    package var time: PHDAbsoluteTime
    package var glucose: UInt16
    package var status: UInt16

    public init(position: Int64, time: PHDAbsoluteTime, glucose: UInt16, status: UInt16) {
        self.position = position
        self.time = time
        self.glucose = glucose
        self.status = status
    }

    package init(position: Int64, bytes: ArraySlice<UInt8>) throws(AccuChekError) {
        let start = bytes.startIndex
        guard let time = PHDAbsoluteTime(bcd: bytes[start..<(start + 8)]) else {
            throw .badEntry(index: position, reason: "its time \(Hex.encode(Array(bytes[start..<(start + 8)]))) is not a BCD date and time")
        }
        self.position = position
        self.time = time
        glucose = UInt16(bytes[start + 8]) << 8 | UInt16(bytes[start + 9])
        status = UInt16(bytes[start + 10]) << 8 | UInt16(bytes[start + 11])
    }

    package var encoded: [UInt8] {
        time.bcd + [UInt8(glucose >> 8), UInt8(glucose & 0xFF), UInt8(status >> 8), UInt8(status & 0xFF)]
    }

    /// MeasurementStatus test-data (IEEE 11073-20601 bit 4, 0x0800): a result of a test, not of
    /// the person, which the meter marks for control-solution tests. Counted, never stored.
    public static let testData: UInt16 = 0x0800
}

/// Everything the meter said in one exchange, from its APDUs in order; the same for a live
/// download and a recorded one.
public struct AccuChekSession: Sendable {
    /// The meter's EUI-64 system id from its association request.
    package var systemID: [UInt8]?
    package var configuration: PHDConfigReport?
    /// The MDS attributes from the answer to GET on handle 0.
    package var mds: [PHDAttribute]?
    package var clock: PHDAbsoluteTime?
    package var clockHostTime: Date?
    package var segmentInfo: PHDSegmentInfo?
    package var transfer: PHDTransferResponse?
    /// Entries by position in the segment.
    package var entries: [Int64: AccuChekEntry] = [:]
    package var segmentEvents = 0
    package var lastSegmentSeen = false
    package var released = false

    public init() {}

    /// The PM-store object of the configuration.
    package var pmStore: PHDConfigObject? { configuration?.objects.first { $0.objectClass == PHDCode.classPMStore } }

    /// Takes in one APDU the meter sent.
    public mutating func absorb(_ apdu: PHDAPDU, hostTime: Date?) throws(AccuChekError) {
        switch apdu {
        case .associationRequest(let request):
            guard let phd = request.phd else {
                throw .requestFailed(request: "association", reason: "the meter offers no IEEE 11073-20601 data protocol")
            }
            systemID = phd.systemID
        case .abort(let reason):
            throw .aborted(reason: reason, afterResults: entries.count)
        case .releaseRequest, .releaseResponse:
            released = true
        case .associationResponse:
            break
        case .presentation(let data):
            try absorb(data, name: apdu.name, hostTime: hostTime)
        }
    }

    private mutating func absorb(_ data: DataAPDU, name: String, hostTime: Date?) throws(AccuChekError) {
        switch data.message {
        case .eventReport(let event, _) where event.type == PHDEvent.configuration:
            configuration = try PHDConfigReport(event.info, apdu: name)
        case .eventReport(let event, _) where event.type == PHDEvent.segmentData:
            let segment = try PHDSegmentData(event.info, apdu: name)
            guard Int(segment.entryCount) * AccuChekEntry.size == segment.entries.count else {
                throw .malformedAPDU(
                    apdu: name, offset: 0,
                    reason: "\(segment.entryCount) entries of \(AccuChekEntry.size) bytes do not fill its \(segment.entries.count) entry bytes")
            }
            segmentEvents += 1
            for i in 0..<Int(segment.entryCount) {
                let position = Int64(segment.firstEntryIndex) + Int64(i)
                let start = i * AccuChekEntry.size
                entries[position] = try AccuChekEntry(position: position, bytes: segment.entries[start..<(start + AccuChekEntry.size)])
            }
            if segment.status & PHDSegmentData.lastEntry != 0 { lastSegmentSeen = true }
            if segment.status & PHDSegmentData.agentAbort != 0 {
                throw .incompleteTransfer(reason: "the meter aborted the segment transfer after \(entries.count) results")
            }
        case .getResult(let handle, let attributes) where handle == 0:
            mds = attributes
            if let time = attributes.first(where: { $0.id == PHDCode.attributeTimeAbsolute })?.value {
                guard let decoded = PHDAbsoluteTime(bcd: time) else {
                    throw .malformedAPDU(apdu: name, offset: 0, reason: "its clock \(Hex.encode(time)) is not a BCD date and time")
                }
                clock = decoded
                clockHostTime = hostTime
            }
        case .actionResult(_, DataMessage.getAction, let result):
            segmentInfo = try PHDSegmentInfo(result, apdu: name)
        case .actionResult(_, DataMessage.transferAction, let result):
            transfer = try PHDTransferResponse(result, apdu: name)
        default:
            break
        }
    }

    /// The unit of the glucose numeric in the configuration: nil when no numeric gives one.
    package func unit() throws(AccuChekError) -> GlucoseUnit? {
        for object in configuration?.objects ?? [] where object.objectClass == PHDCode.classNumeric {
            guard let code = object.attribute(PHDCode.attributeUnitCode) else { continue }
            guard code.count == 2 else {
                throw .malformedAPDU(apdu: "configuration report", offset: 0, reason: "unit code of \(code.count) bytes, not 2")
            }
            switch UInt16(code[0]) << 8 | UInt16(code[1]) {
            case PHDCode.milligramsPerDeciliter: return .milligramsPerDeciliter
            case PHDCode.millimolesPerLiter: return .millimolesPerLiter
            case let other: throw .missingAttribute("a glucose unit it reads (unit code \(other) is neither mg/dL 2130 nor mmol/L 4722)")
            }
        }
        return nil
    }

    /// The meter's serial: the ProductionSpec serial-number entry, else its system id in hex.
    package var serial: String? {
        if let spec = mds?.first(where: { $0.id == PHDCode.attributeProductionSpec })?.value,
            let serial = PHDText.serialNumber(inProductionSpec: spec), !serial.isEmpty
        {
            return serial
        }
        let id = mds?.first(where: { $0.id == PHDCode.attributeSystemID })?.value ?? systemID
        return id.flatMap { $0.isEmpty ? nil : Hex.encode($0).replacingOccurrences(of: " ", with: "") }
    }

    package var model: String? {
        mds?.first(where: { $0.id == PHDCode.attributeModel }).flatMap { PHDText.systemModel($0.value) }.map {
            [$0.manufacturer, $0.model].filter { !$0.isEmpty }.joined(separator: " ")
        }
    }

    /// HI and LO as the meters' manuals give them: above 600 mg/dL (33.3 mmol/L), below 20 mg/dL
    /// (1.1 mmol/L) (Tidepool uploader `accuChekUSB.js`, citing the user manual).
    static func limits(_ unit: GlucoseUnit) -> (low: Double, high: Double) {
        unit == .millimolesPerLiter ? (1.1, 33.3) : (20, 600)
    }

    /// The results as device-neutral records: control-solution results and special values are
    /// counted, not stored; ±INF become HI/LO; a status other than 0 is kept as the note.
    public func normalised() throws(AccuChekError) -> GlucoseDownload {
        guard let serial else { throw .missingAttribute("its system id or serial number") }
        var notes: [String] = []
        let unit: GlucoseUnit
        if let said = try self.unit() {
            unit = said
        } else {
            unit = .milligramsPerDeciliter
            if !entries.isEmpty { notes.append("the meter's configuration gives no glucose unit; results read as mg/dL") }
        }
        let limits = Self.limits(unit)
        var glucose: [DeviceGlucoseRecord] = []
        var events: [String: Int] = [:]
        var seen: [Int64: Int] = [:]
        for entry in entries.values.sorted(by: { $0.position < $1.position }) {
            if entry.status & AccuChekEntry.testData != 0 {
                events["control-solution", default: 0] += 1
                continue
            }
            let value: Double
            var flag: RangeFlag?
            switch MedicalFloat(sfloat: entry.glucose) {
            case .positiveInfinity:
                value = limits.high
                flag = .aboveRange
            case .negativeInfinity:
                value = limits.low
                flag = .belowRange
            case let number:
                guard let finite = number.value else {
                    events["special-value-\(number)", default: 0] += 1
                    continue
                }
                value = finite
            }
            let seconds = entry.time.seconds
            var record = DeviceGlucoseRecord(
                stream: "result", index: seconds, deviceSeconds: seconds, displaySeconds: seconds, value: value, unit: unit,
                kind: .fingerstick, flag: flag,
                note: entry.status == 0 ? nil : "meter status 0x\(phdHex16(entry.status))")
            // The meter keeps no running number that survives its memory wrapping: a result is
            // known by its time; two at the same second by their order.
            let repeats = seen[seconds, default: 0]
            seen[seconds] = repeats + 1
            if repeats > 0 { record.recordKey += "#\(repeats + 1)" }
            glucose.append(record)
        }
        if transfer?.result == 3 { notes.append("the meter's memory is empty") }
        if !released { notes.append("the meter did not confirm the release") }
        return GlucoseDownload(
            source: DeviceSource(family: AccuChekDriver.family, serial: serial, model: model),
            clock: DeviceClock(
                epoch: Date(timeIntervalSince1970: 0), basis: .localWallClock, deviceNow: clock?.seconds, hostNow: clockHostTime,
                resolution: 1),
            glucose: glucose,
            recordsRead: entries.count,
            events: events.sorted { $0.key < $1.key }.map { ImportEvent(name: $0.key, count: $0.value) },
            cursors: glucose.map(\.index).max().map { ["result": $0] } ?? [:],
            notes: notes)
    }
}
