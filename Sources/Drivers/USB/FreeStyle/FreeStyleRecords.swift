import Model

/// A glucose or ketone result as the reader keeps it.
package struct FreeStyleReading: Sendable, Equatable {
    package enum Kind: String, Sendable {
        /// A Libre's automatic 15-minute sensor reading (`$history?`).
        case sensorHistory
        /// A Libre sensor scan (`$arresult?`).
        case sensorScan
        /// A blood glucose strip.
        case bloodGlucose
        /// A β-ketone strip: its value is mmol/L × 18.
        case ketone
    }

    /// The reply it came from: `history`, `arresult` or `result`.
    package var stream: RecordStream
    /// The reader's record number.
    package var id: Int64
    /// The reader's wall clock for the record (no zone), seconds since 1970-01-01 00:00.
    package var time: Int64
    package var kind: Kind
    /// The number recorded (mg/dL for glucose); nil when the meter recorded `HI` or `LO` instead.
    package var value: Int?
    /// Set when the meter recorded `HI` or `LO` instead of a number.
    package var literal: RangeFlag?
    /// A Libre scan's trend arrow: 1 falling fast … 3 steady … 5 rising fast.
    package var trend: Int?
}

/// A Libre time-change row: the user set the reader's clock from `from` to `to`.
package struct FreeStyleTimeChange: Sendable, Equatable {
    package var id: Int64
    /// Wall-clock seconds since 1970.
    package var from: Int64
    package var to: Int64
}

/// What one record row is.
package enum FreeStyleEntry: Sendable, Equatable {
    case reading(FreeStyleReading)
    /// A row the reader itself flagged as an error (error field not 0); counted, never stored.
    case flagged(event: String, record: FreeStyleRecordNumber?)
    case timeChange(FreeStyleTimeChange)
    /// A row that is neither a reading nor a time change, counted under this name.
    case other(event: String, record: FreeStyleRecordNumber?)
}

/// The reply a row came from (`history`, `arresult`, `result`) and its record number there.
package struct FreeStyleRecordNumber: Sendable, Equatable {
    package var stream: RecordStream
    package var id: Int64
}

/// One row of a multi-record reply, read by field index with bounds checks: row lengths differ
/// between models and firmware versions, so no row is assumed to have a fixed field count.
struct FreeStyleRow {
    let command: String
    /// 1-based position of the row in the reply.
    let number: Int
    let fields: [String]

    func failure(_ reason: String) -> FreeStyleError {
        .malformedRow(command: command, row: number, text: fields.joined(separator: ","), reason: reason)
    }

    /// Throws unless the row has a field at `index` (named `name` in the message).
    func require(_ index: Int, _ name: String) throws(FreeStyleError) {
        guard index < fields.count else {
            throw failure("\(fields.count) fields, but the \(name) is field \(index)")
        }
    }

    func int(_ index: Int, _ name: String) throws(FreeStyleError) -> Int {
        try require(index, name)
        guard let value = Int(fields[index]) else {
            throw failure("field \(index) (\(name)) \"\(fields[index].prefix(12))\" is not a whole number")
        }
        return value
    }

    /// `M,D,YY,h,m` (and `,s` when `seconds`) from field `index`: wall-clock seconds since 1970.
    func wallClock(at index: Int, seconds: Bool) throws(FreeStyleError) -> Int64 {
        let month = try int(index, "month")
        let day = try int(index + 1, "day")
        let year = try int(index + 2, "year")
        let hour = try int(index + 3, "hour")
        let minute = try int(index + 4, "minute")
        let second = seconds ? try int(index + 5, "second") : 0
        guard let time = FreeStyleClock.wallSeconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second) else {
            throw failure("\(month)/\(day)/\(year) \(hour):\(minute):\(second) is not a date and time")
        }
        return time
    }

    /// A glucose number, refused when no glucose can be that (the store takes 0 < mg/dL < 1000).
    func glucose(_ index: Int) throws(FreeStyleError) -> Int {
        let value = try int(index, "glucose value")
        guard value > 0, value < 1000 else { throw failure("glucose \(value) mg/dL is impossible") }
        return value
    }
}

/// Reader clocks: `$date?` → `M,D,YY`, `$time?` → `H,M`, two-digit years after 2000.
package enum FreeStyleClock {
    /// What an unset clock (the battery ran out) answers in every field.
    package static let unset = 255

    /// Seconds since 1970 of a wall-clock date and time, or nil when it is not one.
    package static func wallSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int = 0) -> Int64? {
        guard (0...99).contains(year), (1...12).contains(month), (0...23).contains(hour), (0...59).contains(minute),
            (0...59).contains(second)
        else { return nil }
        guard (1...CivilDate.daysInMonth(year: 2000 + year, month: month)).contains(day) else { return nil }
        return CivilDate.days(year: 2000 + year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }
}

/// The rows of each records command.
enum FreeStyleRows {
    /// Libre `$history?` (15-minute sensor readings): 0 id · 1 type (12) · 2–7 M,D,YY,h,m,s ·
    /// 13 glucose mg/dL · 15 error bits (0x8000 invalid). A Libre 3 reader's rows lack field 12
    /// (whose meaning is not known), so its glucose is field 12 and its error bits field 14
    /// (glucometerutils pull request #131); a row of 15 fields from an encrypted reader whose model
    /// the capture does not tell (`encrypted`: a Libre 2 or a Libre 3) is read that way too.
    static func history(_ row: FreeStyleRow, model: FreeStyleModel? = nil, encrypted: Bool = false) throws(FreeStyleError) -> FreeStyleEntry {
        let id = try row.int(0, "record number")
        let type = try row.int(1, "row type")
        let number = FreeStyleRecordNumber(stream: "history", id: Int64(id))
        guard type == 12 else { return .other(event: "history-row-type-\(type)", record: number) }
        let shortRow = model == .libre3 || (model == nil && encrypted && row.fields.count == libre3HistoryFields)
        let (glucoseField, errorField) = shortRow ? (12, 14) : (13, 15)
        if let flagged = try flaggedEvent(row, errorField: errorField, what: "sensor-reading", record: number) { return flagged }
        return .reading(
            FreeStyleReading(
                stream: "history", id: Int64(id), time: try row.wallClock(at: 2, seconds: true), kind: .sensorHistory,
                value: try row.glucose(glucoseField)))
    }

    /// The fields of a Libre 3 `$history?` row.
    static let libre3HistoryFields = 15
    /// The fields of a Libre 3 `$arresult?` result row without its trailing insulin fields: no
    /// comments and no error field.
    static let libre3ResultFields = 28

    /// Libre `$arresult?`: type 2 results (9 reading type: 0 strip, 1 ketone, 2 scan · 12 value ·
    /// 14 trend · 28 error bits) and type 5 time changes (2–7 new time, 9–14 old time). A Libre 3
    /// reader's result rows have no custom comments and no error field (glucometerutils pull
    /// request #131): they are read as rows without errors, and what follows field 27 (insulin
    /// details) is not an error field. A row of 28 fields from an encrypted reader whose model the
    /// capture does not tell is read that way too.
    static func arresult(_ row: FreeStyleRow, model: FreeStyleModel? = nil, encrypted: Bool = false) throws(FreeStyleError) -> FreeStyleEntry {
        let id = try row.int(0, "record number")
        let type = try row.int(1, "row type")
        let number = FreeStyleRecordNumber(stream: "arresult", id: Int64(id))
        switch type {
        case 2:
            let withoutErrors = model == .libre3 || (model == nil && encrypted && row.fields.count == libre3ResultFields)
            if !withoutErrors, let flagged = try flaggedEvent(row, errorField: 28, what: "result", record: number) { return flagged }
            let time = try row.wallClock(at: 2, seconds: true)
            switch try row.int(9, "reading type") {
            case 0:
                return .reading(FreeStyleReading(stream: "arresult", id: Int64(id), time: time, kind: .bloodGlucose, value: try row.glucose(12)))
            case 1:
                return .reading(
                    FreeStyleReading(stream: "arresult", id: Int64(id), time: time, kind: .ketone, value: try row.int(12, "ketone value")))
            case 2:
                let trend = try row.int(14, "trend arrow")
                return .reading(
                    FreeStyleReading(
                        stream: "arresult", id: Int64(id), time: time, kind: .sensorScan, value: try row.glucose(12),
                        trend: (1...5).contains(trend) ? trend : nil))
            case let other:
                return .other(event: "arresult-reading-type-\(other)", record: number)
            }
        case 5:
            return .timeChange(
                FreeStyleTimeChange(
                    id: Int64(id), from: try row.wallClock(at: 9, seconds: true), to: try row.wallClock(at: 2, seconds: true)))
        default:
            return .other(event: "arresult-row-type-\(type)", record: number)
        }
    }

    /// Neo / InsuLinx `$result?`, by row type in field 0: 0 InsuLinx glucose (value at 13),
    /// 7 Neo glucose and 9 Neo ketone (value at 8), 10 Neo insulin; id at 1, `M,D,YY,h,m` at 2–6.
    /// A value may be `HI` or `LO` instead of a number.
    static func result(_ row: FreeStyleRow) throws(FreeStyleError) -> FreeStyleEntry {
        let type = try row.int(0, "row type")
        let number = (try? row.int(1, "record number")).map { FreeStyleRecordNumber(stream: "result", id: Int64($0)) }
        let valueField: Int
        let kind: FreeStyleReading.Kind
        switch type {
        case 0: (valueField, kind) = (13, .bloodGlucose)
        case 7: (valueField, kind) = (8, .bloodGlucose)
        case 9: (valueField, kind) = (8, .ketone)
        case 10: return .other(event: "insulin-entry", record: number)
        default: return .other(event: "result-row-type-\(type)", record: number)
        }
        let id = try row.int(1, "record number")
        let time = try row.wallClock(at: 2, seconds: false)
        try row.require(valueField, "value")
        var reading = FreeStyleReading(stream: "result", id: Int64(id), time: time, kind: kind)
        switch row.fields[valueField] {
        case "HI": reading.literal = .aboveRange
        case "LO": reading.literal = .belowRange
        default: reading.value = kind == .ketone ? try row.int(valueField, "ketone value") : try row.glucose(valueField)
        }
        return .reading(reading)
    }

    /// The event for a row whose error field is not 0, or nil for a good row.
    private static func flaggedEvent(
        _ row: FreeStyleRow, errorField: Int, what: String, record: FreeStyleRecordNumber
    ) throws(FreeStyleError) -> FreeStyleEntry? {
        let errors = try row.int(errorField, "error field")
        guard errors != 0 else { return nil }
        return .flagged(event: errors & 0x8000 != 0 ? "\(what)-flagged-invalid" : "\(what)-with-error-bits", record: record)
    }
}
