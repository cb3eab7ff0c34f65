import Foundation
import Model

/// The nomenclature codes the exchange uses (IEEE 11073-10101, as listed in Tidepool uploader
/// `lib/drivers/roche/utils.js` and Signove Antidote `src/communication/nomenclature.h`).
package enum PHDCode {
    package static let classNumeric: UInt16 = 6
    package static let classPMStore: UInt16 = 61
    package static let attributeModel: UInt16 = 2344
    package static let attributeProductionSpec: UInt16 = 2349
    package static let attributeNumberOfSegments: UInt16 = 2385
    package static let attributeSystemID: UInt16 = 2436
    package static let attributeTimeAbsolute: UInt16 = 2439
    package static let attributeUnitCode: UInt16 = 2454
    /// MDC_DIM_MILLI_G_PER_DL.
    package static let milligramsPerDeciliter: UInt16 = 2130
    /// MDC_DIM_MILLI_MOLE_PER_L.
    package static let millimolesPerLiter: UInt16 = 4722
}

/// One object of a configuration report: class, handle and attributes.
package struct PHDConfigObject: Sendable, Equatable {
    package var objectClass: UInt16
    package var handle: UInt16
    package var attributes: [PHDAttribute]

    package init(objectClass: UInt16, handle: UInt16, attributes: [PHDAttribute]) {
        self.objectClass = objectClass
        self.handle = handle
        self.attributes = attributes
    }

    package func attribute(_ id: UInt16) -> [UInt8]? { attributes.first { $0.id == id }?.value }
}

/// ConfigReport, the information of an MDC_NOTI_CONFIG event: the agent's objects.
package struct PHDConfigReport: Sendable, Equatable {
    package var reportID: UInt16
    package var objects: [PHDConfigObject]

    package init(reportID: UInt16, objects: [PHDConfigObject]) {
        self.reportID = reportID
        self.objects = objects
    }

    /// Decodes the event information; `apdu` and `offset` place it for errors.
    package init(_ info: [UInt8], apdu: String = "configuration report", offset: Int = 0) throws(AccuChekError) {
        var reader = MDERReader([UInt8](repeating: 0, count: offset) + info, apdu: apdu, offset: offset)
        reportID = try reader.u16("config-report-id")
        let count = try reader.u16("config-obj-list count")
        var list = try reader.nested("config-obj-list")
        objects = []
        for _ in 0..<count {
            let objectClass = try list.u16("obj-class")
            let handle = try list.u16("obj-handle")
            objects.append(PHDConfigObject(objectClass: objectClass, handle: handle, attributes: try PHDAttribute.list(&list, "attributes")))
        }
        try list.expectEnd()
        try reader.expectEnd()
    }

    package func encoded() -> [UInt8] {
        var writer = MDERWriter()
        writer.u16(reportID)
        writer.u16(UInt16(objects.count))
        writer.lengthPrefixed { list in
            for object in objects {
                list.u16(object.objectClass)
                list.u16(object.handle)
                PHDAttribute.encode(object.attributes, into: &list)
            }
        }
        return writer.bytes
    }

    /// ConfigReportRsp: the report id and the result (0 accepted-config).
    package static func response(reportID: UInt16, result: UInt16 = 0) -> [UInt8] {
        var writer = MDERWriter()
        writer.u16(reportID)
        writer.u16(result)
        return writer.bytes
    }
}

/// SegmentDataInfo and the entries of an MDC_NOTI_SEGMENT_DATA event.
package struct PHDSegmentData: Sendable, Equatable {
    package var instance: UInt16
    /// The index of the first entry in the segment.
    package var firstEntryIndex: UInt32
    package var entryCount: UInt32
    /// seg-evt-status: 0x8000 first entry, 0x4000 last entry, 0x0800 agent abort; the manager
    /// answers with 0x0080 (manager confirm).
    package var status: UInt16
    package var entries: [UInt8]

    package static let firstEntry: UInt16 = 0x8000
    package static let lastEntry: UInt16 = 0x4000
    package static let agentAbort: UInt16 = 0x0800
    package static let managerConfirm: UInt16 = 0x0080

    package init(instance: UInt16, firstEntryIndex: UInt32, entryCount: UInt32, status: UInt16, entries: [UInt8]) {
        self.instance = instance
        self.firstEntryIndex = firstEntryIndex
        self.entryCount = entryCount
        self.status = status
        self.entries = entries
    }

    package init(_ info: [UInt8], apdu: String = "segment data event", offset: Int = 0) throws(AccuChekError) {
        var reader = MDERReader([UInt8](repeating: 0, count: offset) + info, apdu: apdu, offset: offset)
        instance = try reader.u16("seg-instance")
        firstEntryIndex = try reader.u32("seg-evt-entry-index")
        entryCount = try reader.u32("seg-evt-entry-count")
        status = try reader.u16("seg-evt-status")
        entries = try reader.lengthPrefixed("segment entries")
        try reader.expectEnd()
    }

    package func encoded() -> [UInt8] {
        var writer = MDERWriter()
        writer.append(resultHeader(status: status))
        writer.lengthPrefixed { $0.append(entries) }
        return writer.bytes
    }

    private func resultHeader(status: UInt16) -> [UInt8] {
        var writer = MDERWriter()
        writer.u16(instance)
        writer.u32(firstEntryIndex)
        writer.u32(entryCount)
        writer.u16(status)
        return writer.bytes
    }

    /// SegmentDataResult: the event's segment-data-info with the manager's confirmation.
    package var confirmation: [UInt8] { resultHeader(status: Self.managerConfirm) }
}

/// The answer to MDC_ACT_SEG_TRIG_XFER: the segment and whether its transfer starts.
package struct PHDTransferResponse: Sendable, Equatable {
    package var instance: UInt16
    /// 0 successful, 1 no such segment, 2 try later, 3 segment empty, 512 other failure.
    package var result: UInt16

    package init(instance: UInt16, result: UInt16) {
        self.instance = instance
        self.result = result
    }

    package init(_ bytes: [UInt8], apdu: String) throws(AccuChekError) {
        var reader = MDERReader(bytes, apdu: apdu)
        instance = try reader.u16("seg-inst-no")
        result = try reader.u16("trig-segm-xfer-rsp")
        try reader.expectEnd()
    }

    package var encoded: [UInt8] {
        var writer = MDERWriter()
        writer.u16(instance)
        writer.u16(result)
        return writer.bytes
    }

    package var resultText: String {
        switch result {
        case 0: "transfer successful"
        case 1: "no such segment"
        case 2: "try again later"
        case 3: "segment empty"
        default: "failure \(result)"
        }
    }
}

/// The PM-store's segments from the answer to MDC_ACT_SEG_GET_INFO (SegmentInfoList).
package struct PHDSegmentInfo: Sendable, Equatable {
    package var segments: [(instance: UInt16, attributes: [PHDAttribute])]

    package init(segments: [(instance: UInt16, attributes: [PHDAttribute])]) {
        self.segments = segments
    }

    package init(_ bytes: [UInt8], apdu: String) throws(AccuChekError) {
        var reader = MDERReader(bytes, apdu: apdu)
        let count = try reader.u16("segment-info-list count")
        var list = try reader.nested("segment-info-list")
        segments = []
        for _ in 0..<count {
            let instance = try list.u16("seg-inst-no")
            segments.append((instance, try PHDAttribute.list(&list, "seg-info")))
        }
        try list.expectEnd()
        try reader.expectEnd()
    }

    package var encoded: [UInt8] {
        var writer = MDERWriter()
        writer.u16(UInt16(segments.count))
        writer.lengthPrefixed { list in
            for segment in segments {
                list.u16(segment.instance)
                PHDAttribute.encode(segment.attributes, into: &list)
            }
        }
        return writer.bytes
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.segments.map(\.instance) == rhs.segments.map(\.instance) && lhs.segments.map(\.attributes) == rhs.segments.map(\.attributes)
    }

    /// SegmSelection all-segments, the argument of MDC_ACT_SEG_GET_INFO.
    package static let allSegments: [UInt8] = [0x00, 0x01, 0x00, 0x02, 0x00, 0x00]
}

/// AbsoluteTime: century, year, month, day, hour, minute, second and hundredths, one BCD byte
/// each (IEEE 11073-20601; the meter's local clock, no zone).
public struct PHDAbsoluteTime: Sendable, Equatable {
    package var year: Int
    package var month: Int
    package var day: Int
    package var hour: Int
    package var minute: Int
    package var second: Int
    package var hundredths: Int

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, hundredths: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.hundredths = hundredths
    }

    /// The wall clock as seconds since 1970-01-01 read without a zone.
    public init(seconds: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let civil = CivilDate.civil(fromDays: days)
        let rest = Int(seconds - days * 86_400)
        self.init(year: civil.year, month: civil.month, day: civil.day, hour: rest / 3600, minute: rest / 60 % 60, second: rest % 60)
    }

    /// Decodes 8 BCD bytes; nil when a digit is not decimal or a field is out of its range.
    package init?(bcd bytes: some Collection<UInt8>) {
        guard bytes.count == 8 else { return nil }
        var fields: [Int] = []
        for byte in bytes {
            guard byte >> 4 < 10, byte & 0x0F < 10 else { return nil }
            fields.append(Int(byte >> 4) * 10 + Int(byte & 0x0F))
        }
        self.init(
            year: fields[0] * 100 + fields[1], month: fields[2], day: fields[3], hour: fields[4], minute: fields[5], second: fields[6],
            hundredths: fields[7])
        guard (1...12).contains(month), (1...CivilDate.daysInMonth(year: year, month: month)).contains(day), hour < 24, minute < 60,
            second < 60
        else { return nil }
    }

    package var bcd: [UInt8] {
        [year / 100, year % 100, month, day, hour, minute, second, hundredths].map { UInt8((($0 / 10) << 4) | ($0 % 10)) }
    }

    /// Seconds since 1970-01-01 of this wall clock read without a zone.
    public var seconds: Int64 {
        CivilDate.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// `2026-03-10 09:15:00`.
    package var text: String {
        String(format: "%04d-%02d-%02d %02d:%02d:%02d", year, month, day, hour, minute, second)
    }
}

/// Text fields of the MDS attributes.
package enum PHDText {
    /// SystemModel: manufacturer and model number, each a length-prefixed string.
    package static func systemModel(_ bytes: [UInt8]) -> (manufacturer: String, model: String)? {
        var reader = MDERReader(bytes, apdu: "MDC_ATTR_ID_MODEL")
        guard let manufacturer = try? reader.lengthPrefixed("manufacturer"), let model = try? reader.lengthPrefixed("model-number")
        else { return nil }
        return (clean(manufacturer), clean(model))
    }

    /// The serial-number entry (spec-type 1) of a ProductionSpec: count, length, then
    /// `spec-type, component-id, prod-spec` for each.
    package static func serialNumber(inProductionSpec bytes: [UInt8]) -> String? {
        var reader = MDERReader(bytes, apdu: "MDC_ATTR_ID_PROD_SPECN")
        guard let count = try? reader.u16("count"), var list = try? reader.nested("entries") else { return nil }
        for _ in 0..<count {
            guard let type = try? list.u16("spec-type"), (try? list.u16("component-id")) != nil,
                let text = try? list.lengthPrefixed("prod-spec")
            else { return nil }
            if type == 1 { return clean(text) }
        }
        return nil
    }

    /// ProductionSpec with one serial-number entry.
    package static func productionSpec(serial: String) -> [UInt8] {
        var writer = MDERWriter()
        writer.u16(1)
        writer.lengthPrefixed { list in
            list.u16(1)
            list.u16(0)
            list.lengthPrefixed { $0.append(Array(serial.utf8)) }
        }
        return writer.bytes
    }

    package static func systemModel(manufacturer: String, model: String) -> [UInt8] {
        var writer = MDERWriter()
        writer.lengthPrefixed { $0.append(Array(manufacturer.utf8)) }
        writer.lengthPrefixed { $0.append(Array(model.utf8)) }
        return writer.bytes
    }

    /// The printable text, without the NULs and spaces meters pad fields with.
    static func clean(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.filter { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self).trimmingCharacters(in: " ")
    }
}
