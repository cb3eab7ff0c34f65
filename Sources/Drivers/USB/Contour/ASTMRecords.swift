import Model

/// The delimiters a session uses, taken from its header record (`H|\^&`).
public struct ASTMDelimiters: Sendable, Equatable {
    package var field: Character = "|"
    package var `repeat`: Character = "\\"
    package var component: Character = "^"
    package var escape: Character = "&"

    public init() {}
}

/// The header record: who the meter is and how it reports.
public struct ContourHeader: Sendable, Equatable {
    package var delimiters: ASTMDelimiters
    /// The product code, e.g. `Bayer7390` (Contour USB).
    package var product: String
    /// Firmware versions, as the meter lists them.
    package var versions: [String]
    package var serial: String
    /// Configuration fields (`U=0`, `V=10600`, …).
    package var configuration: [String: String]
    /// The unit results are reported in (`U=0` mg/dL, `U=1` mmol/L).
    package var unit: GlucoseUnit
    /// The meter's reportable range in mg/dL (`V=llhhh`), when given.
    package var reportableRange: ClosedRange<Int>?
    /// The meter's clock, wall time without a zone, seconds since 1970.
    package var clock: Int64?
    /// Whether the clock was given to the second (`YYYYMMDDhhmmss`) rather than the minute.
    package var clockHasSeconds = false
    /// The number of results the meter says it holds (field 6), when given.
    package var resultCount: Int?

    /// Reads `H|\^&||password|product^versions^serial^sku|configuration|count|…|YYYYMMDDhhmm`.
    public init(_ text: String) throws(ContourError) {
        let characters = Array(text)
        guard characters.count > 5, characters[0] == "H" else {
            throw .malformedRecord(record: text, reason: "a header starts with H and its four delimiters")
        }
        var delimiters = ASTMDelimiters()
        delimiters.field = characters[1]
        delimiters.repeat = characters[2]
        delimiters.component = characters[3]
        delimiters.escape = characters[4]
        self.delimiters = delimiters
        let fields = text.split(separator: delimiters.field, omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 6 else { throw .malformedRecord(record: text, reason: "\(fields.count) fields; a header has at least 6") }
        let product = fields[4].split(separator: delimiters.component, omittingEmptySubsequences: false).map(String.init)
        guard product.count >= 3, !product[2].isEmpty else {
            throw .malformedRecord(record: text, reason: "field 4 does not hold product^versions^serial")
        }
        self.product = product[0]
        versions = product[1].split(separator: delimiters.repeat).map(String.init)
        serial = product[2]
        var configuration: [String: String] = [:]
        for item in fields[5].split(separator: delimiters.component) {
            let pair = item.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { configuration[String(pair[0])] = String(pair[1]) }
        }
        self.configuration = configuration
        switch configuration["U"] {
        case "1"?: unit = .millimolesPerLiter
        case "0"?, nil: unit = .milligramsPerDeciliter
        case let other?: throw .malformedRecord(record: text, reason: "unknown unit code U=\(other)")
        }
        if let limits = configuration["V"], limits.count == 5, let low = Int(limits.prefix(2)), let high = Int(limits.suffix(3)) {
            guard low <= high else {
                throw .malformedRecord(record: text, reason: "the reportable range V=\(limits) has its low limit \(low) above its high limit \(high)")
            }
            reportableRange = low...high
        }
        clock = fields.last.flatMap { ContourTime.seconds($0) }
        clockHasSeconds = clock != nil && fields.last?.count == 14
        resultCount = fields.count > 6 ? Int(fields[6]) : nil
    }
}

/// A result record: `R|seq|^^^Glucose|value|unit^reference||markers||YYYYMMDDhhmm`.
public struct ContourResult: Sendable, Equatable {
    package var sequence: Int
    /// `Glucose`, `Carb` or `Insulin`.
    package var type: String
    /// The value as the meter wrote it, in `unit`.
    package var value: Double
    package var unitText: String
    /// The measurement reference: B whole blood, P plasma, C capillary, D deproteinised.
    package var reference: String?
    /// Markers: `<` below range, `>` above range, `C` control solution, `B`/`A` before/after meal, …
    package var markers: [String]
    /// The meter's wall clock for the result, seconds since 1970 without a zone.
    package var time: Int64
    /// The timestamp text as the meter wrote it.
    package var timeText: String

    public init(_ text: String, delimiters: ASTMDelimiters) throws(ContourError) {
        let fields = text.split(separator: delimiters.field, omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 9, fields[0] == "R" else {
            throw .malformedRecord(record: text, reason: "\(fields.count) fields; a result has at least 9")
        }
        guard let sequence = Int(fields[1]) else { throw .malformedRecord(record: text, reason: "sequence \"\(fields[1])\" is not a number") }
        self.sequence = sequence
        type = fields[2].split(separator: delimiters.component, omittingEmptySubsequences: false).last.map(String.init) ?? ""
        guard let value = Double(fields[3]), value.isFinite, value >= 0 else {
            throw .malformedRecord(record: text, reason: "value \"\(fields[3])\" is not a number")
        }
        self.value = value
        let unit = fields[4].split(separator: delimiters.component, omittingEmptySubsequences: false).map(String.init)
        unitText = unit.first ?? ""
        reference = unit.count > 1 && !unit[1].isEmpty ? unit[1] : nil
        markers = fields[6].split(separator: "/").map(String.init)
        timeText = fields[8]
        guard let time = ContourTime.seconds(fields[8]) else {
            throw .malformedRecord(record: text, reason: "timestamp \"\(fields[8])\" is not YYYYMMDDhhmm[ss]")
        }
        self.time = time
    }

    /// The meal, activity and feeling markers in words, `; `-separated (`before meal; activity`),
    /// with markers of unknown meaning (`M0`, `T1`) kept as written; nil when there are none.
    /// `<`, `>` (flags) and `C` (control solution) are not part of it.
    package var note: String? {
        let words = markers.compactMap { marker -> String? in
            switch marker {
            case "<", ">", "C": return nil
            case "B": return "before meal"
            case "A": return "after meal"
            case "F": return "fasting"
            case "D": return "don't feel right"
            case "I": return "sick"
            case "S": return "stress"
            case "X": return "activity"
            default:
                // Z1…ZC: quarter hours after a meal, one hex digit.
                if marker.count == 2, marker.first == "Z", let quarters = Int(marker.dropFirst(), radix: 16), quarters > 0 {
                    return "\(quarters * 15) min after meal"
                }
                return marker.isEmpty ? nil : marker
            }
        }
        return words.isEmpty ? nil : words.joined(separator: "; ")
    }

    package var isControlSolution: Bool { markers.contains("C") }
    package var isBelowRange: Bool { markers.contains("<") }
    package var isAboveRange: Bool { markers.contains(">") }
}

/// Meter timestamps: `YYYYMMDDhhmm`, or with seconds (`YYYYMMDDhhmmss`, Contour Next Link 2.4).
enum ContourTime {
    static func seconds(_ text: String) -> Int64? {
        let digits = Array(text.utf8)
        guard digits.count == 12 || digits.count == 14, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        func number(_ range: Range<Int>) -> Int { digits[range].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        let (year, month, day, hour, minute) = (number(0..<4), number(4..<6), number(6..<8), number(8..<10), number(10..<12))
        let second = digits.count == 14 ? number(12..<14) : 0
        guard (1...12).contains(month), (1...CivilDate.daysInMonth(year: year, month: month)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        return CivilDate.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }
}
