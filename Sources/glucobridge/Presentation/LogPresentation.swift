import Foundation
import Model
import Store

/// How the commands show a stored log: a line of text for a terminal, an object for `--json`.
protocol PresentableLog: LogEntry {
    /// What the log holds, in words: `Oatmeal: 45 g carbs, 8 g protein, 5 g fat`.
    func details(zone: TimeZone) -> String
    /// The details with any glucose value also in the display `unit` (by default, as
    /// ``details(zone:)``: kinds without a glucose value).
    func details(zone: TimeZone, unit: GlucoseUnit) -> String
    /// Fills the kind's own fields of the JSON object.
    func fill(_ record: inout LogJSON)
}

extension PresentableLog {
    func details(zone: TimeZone, unit: GlucoseUnit) -> String { details(zone: zone) }
}

extension Stored where Log: PresentableLog {
    /// The JSON object of the log.
    var record: LogJSON {
        var record = LogJSON(
            kind: Log.kind.rawValue, id: id.rawValue, day: day.description, time: Format.utc(log.time))
        log.fill(&record)
        record.source = source?.description
        record.recordKey = recordKey
        return record
    }

    /// `meal #3`.
    var label: String { "\(Log.kind) #\(id.rawValue)" }

    /// The details (glucose also in the display `unit`, when given), marked when the log was
    /// imported from a device.
    func details(zone: TimeZone, unit: GlucoseUnit? = nil) -> String {
        let details = unit.map { log.details(zone: zone, unit: $0) } ?? log.details(zone: zone)
        guard let source else { return details }
        return details + " [imported: \(source)]"
    }
}

/// One log as a JSON object; fields that do not apply to its kind are left out.
struct LogJSON: Encodable, Equatable {
    var kind: String
    var id: Int64
    var day: String
    /// ISO 8601 UTC; an episode's start.
    var time: String
    var end: String?
    var open: Bool?
    var durationSeconds: Double?
    var value: Double?
    var unit: String?
    var mgdl: Double?
    var tag: String?
    var reading: String?
    var units: Double?
    var name: String?
    var carbs: Double?
    var protein: Double?
    var fat: Double?
    var intensity: String?
    /// Metres, as stored.
    var distanceM: Double?
    /// kJ, as stored.
    var energyKj: Double?
    var favourite: Bool?
    var source: String?
    var recordKey: String?
}

extension GlucoseLog: PresentableLog {
    /// The value in its own unit: `120 mg/dL, …`.
    func details(zone: TimeZone) -> String { details(zone: zone, unit: unit) }

    /// The value as entered, then in the display unit when that is another: `5.5 mmol/L (99 mg/dL), …`.
    func details(zone: TimeZone, unit display: GlucoseUnit) -> String {
        var shown = "\(Format.glucose(mgdl, unit: unit, decimals: 1)) \(unit.rawValue)"
        // The tag follows on the line, so a value between the units' edges needs none of its own.
        if display != unit { shown += " (\(DisplayText.glucoseText(mgdl, unit: display).text) \(display.rawValue))" }
        return "\(shown), \(tag.map(Format.tag) ?? "untagged"), \(kind.rawValue)"
    }

    func fill(_ record: inout LogJSON) {
        record.value = value
        record.unit = unit.rawValue
        record.mgdl = mgdl
        record.tag = tag?.rawValue
        record.reading = kind.rawValue
    }
}

extension InsulinLog: PresentableLog {
    func details(zone: TimeZone) -> String { "\(Format.number(units, decimals: 2)) units" }

    func fill(_ record: inout LogJSON) {
        record.units = units
    }
}

extension MealLog: PresentableLog {
    func details(zone: TimeZone) -> String {
        let food = "\(Format.number(carbs)) g carbs, \(Format.number(protein)) g protein, \(Format.number(fat)) g fat"
        return (name.isEmpty ? food : "\(name): \(food)") + (isFavourite ? " (favourite)" : "")
    }

    func fill(_ record: inout LogJSON) {
        record.name = name
        record.carbs = carbs
        record.protein = protein
        record.fat = fat
        record.favourite = isFavourite
    }
}

extension ExerciseLog: PresentableLog {
    func details(zone: TimeZone) -> String {
        var shown = "\(name), \(Format.duration(duration)), \(intensity.rawValue)"
        if let distance { shown += ", " + Format.distance(distance) }
        if let energy { shown += ", \(Format.number(energy, decimals: 0)) kJ" }
        return shown + (isFavourite ? " (favourite)" : "")
    }

    func fill(_ record: inout LogJSON) {
        record.name = name
        record.durationSeconds = duration
        record.intensity = intensity.rawValue
        record.distanceM = distance
        record.energyKj = energy
        record.favourite = isFavourite
    }
}

extension IllnessEpisode: PresentableLog {
    func details(zone: TimeZone) -> String { Format.episode(start: start, end: end, zone: zone) }
    func fill(_ record: inout LogJSON) { Format.fillEpisode(&record, end: end, duration: duration) }
}

extension StressEpisode: PresentableLog {
    func details(zone: TimeZone) -> String { Format.episode(start: start, end: end, zone: zone) }
    func fill(_ record: inout LogJSON) { Format.fillEpisode(&record, end: end, duration: duration) }
}

/// Numbers, times and durations as the commands print them.
enum Format {
    /// `45`, `60.5`: at most `decimals` decimals, no trailing zeros.
    static func number(_ value: Double, decimals: Int = 1) -> String { DisplayText.number(value, decimals: decimals) }

    /// `08:30`, or `08:30:15` when the seconds are not 0.
    static func clock(_ secondOfDay: Int) -> String {
        let hm = String(format: "%02d:%02d", secondOfDay / 3600, secondOfDay / 60 % 60)
        return secondOfDay % 60 == 0 ? hm : hm + String(format: ":%02d", secondOfDay % 60)
    }

    /// The wall-clock time of `date` in `zone` to the minute (`HH:MM`, seconds dropped), with
    /// the zone's offset when `withOffset`.
    static func localTime(_ date: Date, zone: TimeZone, withOffset: Bool = false) -> String {
        let offset = zone.secondsFromGMT(for: date)
        let local = Int64(date.timeIntervalSince1970.rounded(.down)) + Int64(offset)
        let secondOfDay = Int(local - CivilDate.floorDiv(local, 86_400) * 86_400)
        let time = clock(secondOfDay - secondOfDay % 60)
        guard withOffset else { return time }
        let sign = offset < 0 ? "-" : "+"
        return "\(time) \(sign)" + String(format: "%02d:%02d", abs(offset) / 3600, abs(offset) / 60 % 60)
    }

    /// `2013-09-13T14:30:00Z`, with milliseconds when they are not 0.
    static func utc(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        if milliseconds.truncatingRemainder(dividingBy: 1000) != 0 {
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        }
        return formatter.string(from: Date(timeIntervalSince1970: milliseconds / 1000))
    }

    /// `2 h 30 min`, `45 min`, `30 s`.
    static func duration(_ seconds: TimeInterval) -> String { DisplayText.duration(seconds) }

    /// `457 m` under a kilometre, else `25.31 km`.
    static func distance(_ metres: Double) -> String {
        metres < 1000 ? "\(number(metres, decimals: 0)) m" : "\(number(metres / 1000, decimals: 2)) km"
    }

    static func tag(_ tag: GlucoseTag) -> String {
        switch tag {
        case .hypoLevel2: "hypo (level 2)"
        case .hypoLevel1: "hypo"
        case .inRange: "in range"
        case .hyperLevel1: "hyper"
        case .hyperLevel2: "hyper (level 2)"
        }
    }

    /// `until 11:30 (2 h 30 min)`, `ongoing`; the end's date is shown when it is another Day's.
    static func episode(start: Date, end: Date?, zone: TimeZone) -> String {
        guard let end else { return "ongoing" }
        let sameDay = DayDate(instant: start, timeZone: zone) == DayDate(instant: end, timeZone: zone)
        let until =
            sameDay
            ? localTime(end, zone: zone)
            : "\(DayDate(instant: end, timeZone: zone)) \(localTime(end, zone: zone))"
        return "until \(until) (\(duration(end.timeIntervalSince(start))))"
    }

    static func fillEpisode(_ record: inout LogJSON, end: Date?, duration: TimeInterval?) {
        record.end = end.map(utc)
        record.open = end == nil
        record.durationSeconds = duration
    }

    /// Pretty, key-sorted JSON with snake_case keys, ending with a newline.
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
