import ArgumentParser
import Foundation
import GlucoseMetrics
import Model
import Store

struct StatsCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract:
            "Shows the consensus CGM metrics of a period (default: the last 14 Days): coverage, mean, GMI, variability, time in ranges and hypo / hyper events.",
        discussion: """
            Fingerstick readings are left out of the CGM metrics (the output says how many). \
            Ranges and events use the store's thresholds. With --json, every number is a \
            number, rounded to one decimal; gmi_percent is null below 70 % coverage.
            """)

    @OptionGroup var periodOptions: PeriodOptions
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func output(_ store: SharedStore) throws -> String {
        let period = try periodOptions.period(store)
        let statistics = GlucoseStatistics(
            readings: try store.glucose(from: period.start, to: period.end), period: period, thresholds: try store.thresholds())
        if outputOptions.json { return try Format.json(StatsJSON(statistics, zone: store.timeZone)) }
        return StatsPresentation.text(statistics, thresholds: try store.thresholds(), zone: store.timeZone, unit: try store.displayUnit())
    }
}

/// `stats --json`: exactly the keys docs/commands.md lists.
struct StatsJSON: Encodable {
    var from: String
    var to: String
    var zone: String
    var readings: Int
    var fingersticksExcluded: Int
    var coveragePercent: Double
    var meanMgdl: Double?
    var sdMgdl: Double?
    var cvPercent: Double?
    var gmiPercent: Double?
    var timeInRangesPercent: [String: Double]
    var events: [String: Int]

    init(_ statistics: GlucoseStatistics, zone: TimeZone) {
        let round = GlucoseStatistics.rounded
        from = Format.utc(statistics.period.start)
        to = Format.utc(statistics.period.end)
        self.zone = zone.identifier
        readings = statistics.readings
        fingersticksExcluded = statistics.fingersticksExcluded
        coveragePercent = round(statistics.coveragePercent)
        meanMgdl = statistics.mean.map(round)
        sdMgdl = statistics.sd.map(round)
        cvPercent = statistics.cvPercent.map(round)
        gmiPercent = statistics.gmiPercent.map(round)
        timeInRangesPercent = Dictionary(uniqueKeysWithValues: StatsPresentation.ranges.map { ($0.key, round(statistics.timeInRanges[$0.tag] ?? 0)) })
        events = Dictionary(uniqueKeysWithValues: GlycaemicEventKind.allCases.map { ($0.rawValue, statistics.count($0)) })
    }

    enum CodingKeys: String, CodingKey {
        case from, to, zone, readings, fingersticksExcluded, coveragePercent, meanMgdl, sdMgdl, cvPercent, gmiPercent
        case timeInRangesPercent, events
    }

    /// Written by hand so that a missing value is `null`, not a missing key.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(from, forKey: .from)
        try container.encode(to, forKey: .to)
        try container.encode(zone, forKey: .zone)
        try container.encode(readings, forKey: .readings)
        try container.encode(fingersticksExcluded, forKey: .fingersticksExcluded)
        try container.encode(coveragePercent, forKey: .coveragePercent)
        try container.encode(meanMgdl, forKey: .meanMgdl)
        try container.encode(sdMgdl, forKey: .sdMgdl)
        try container.encode(cvPercent, forKey: .cvPercent)
        try container.encode(gmiPercent, forKey: .gmiPercent)
        try container.encode(timeInRangesPercent, forKey: .timeInRangesPercent)
        try container.encode(events, forKey: .events)
    }
}

/// `stats` as text.
enum StatsPresentation {
    /// The JSON key and tag of each range, highest first as the AGP report stacks them.
    static let ranges: [(key: String, tag: GlucoseTag)] = [
        ("very_high", .hyperLevel2), ("high", .hyperLevel1), ("in_range", .inRange), ("low", .hypoLevel1), ("very_low", .hypoLevel2),
    ]

    /// A range's name with its edges in `unit`, e.g. `in range (70–180)`: the edges are strict,
    /// so low is `54 to < 70` (69.6 is low) and high `> 180 to 250` (180.1 is high).
    static func label(_ tag: GlucoseTag, _ t: GlucoseThresholds, unit: GlucoseUnit) -> String {
        func v(_ mgdl: Int) -> String { Format.glucose(Double(mgdl), unit: unit) }
        switch tag {
        case .hyperLevel2: return "very high (> \(v(t.veryHigh)))"
        case .hyperLevel1: return "high (> \(v(t.high)) to \(v(t.veryHigh)))"
        case .inRange: return "in range (\(v(t.low))–\(v(t.high)))"
        case .hypoLevel1: return "low (\(v(t.veryLow)) to < \(v(t.low)))"
        case .hypoLevel2: return "very low (< \(v(t.veryLow)))"
        }
    }

    /// The consensus target for most adults with type 1 or type 2 diabetes (Battelino 2019).
    static func target(_ tag: GlucoseTag) -> String {
        switch tag {
        case .hyperLevel2: "target < 5 %"
        case .hyperLevel1: "target < 25 % above range"
        case .inRange: "target > 70 %"
        case .hypoLevel1: "target < 4 % below range"
        case .hypoLevel2: "target < 1 %"
        }
    }

    static func percent(_ value: Double) -> String { DisplayText.percent(value) }

    static func text(_ s: GlucoseStatistics, thresholds: GlucoseThresholds, zone: TimeZone, unit: GlucoseUnit) -> String {
        let u = unit.rawValue
        var lines = [
            "CGM statistics from \(Format.localDateTime(s.period.start, zone: zone)) to \(Format.localDateTime(s.period.end, zone: zone)) (\(zone.identifier))"
        ]
        lines.append("readings         \(s.readings) (sensor every \(Int(s.interval / 60)) min)")
        lines.append("CGM active       \(percent(s.coveragePercent))   (target ≥ 70 %)")
        if s.readings == 0 {
            lines.append("no CGM readings in this period")
        } else {
            if s.coveragePercent < GlucoseStatistics.minimumCoveragePercent {
                lines.append("coverage is below 70 %: these metrics may not represent the period, and GMI is not given")
            }
            lines.append("mean glucose     \(s.mean.map { Format.glucose($0, unit: unit, decimals: 1) } ?? "–") \(u)")
            lines.append("GMI              \(s.gmiPercent.map(percent) ?? "not given (coverage below 70 %)")")
            lines.append("SD               \(s.sd.map { Format.glucose($0, unit: unit, decimals: 1) } ?? "–") \(u)")
            lines.append("CV               \(s.cvPercent.map(percent) ?? "–")   (target ≤ 36 %)")
            lines.append("time in ranges (\(u)):")
            let width = ranges.map { label($0.tag, thresholds, unit: unit).count }.max() ?? 0
            for (_, tag) in ranges {
                let name = label(tag, thresholds, unit: unit)
                let share = percent(s.timeInRanges[tag] ?? 0)
                lines.append(
                    "  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + String(repeating: " ", count: max(0, 7 - share.count))
                        + share + "   (\(target(tag)))")
            }
            lines.append("events (≥ 15 min beyond the threshold, ended by ≥ 15 min back):")
            lines.append(
                "  hypo level 1 (< \(Format.glucose(Double(thresholds.low), unit: unit))): \(s.count(.hypoLevel1)), of which level 2 (< \(Format.glucose(Double(thresholds.veryLow), unit: unit))): \(s.count(.hypoLevel2))"
            )
            lines.append(
                "  hyper level 1 (> \(Format.glucose(Double(thresholds.high), unit: unit))): \(s.count(.hyperLevel1)), level 2 (> \(Format.glucose(Double(thresholds.veryHigh), unit: unit))): \(s.count(.hyperLevel2))"
            )
        }
        lines.append("fingerstick readings left out: \(s.fingersticksExcluded)")
        return lines.joined(separator: "\n")
    }
}

extension Format {
    /// `2024-05-01 08:30`: the Day and wall-clock time of `date` in `zone`.
    static func localDateTime(_ date: Date, zone: TimeZone) -> String {
        LocalTimeText.text(date, zone: zone)
    }

    /// A glucose value given in mg/dL, in `unit`: whole mg/dL, or mmol/L to one decimal.
    static func glucose(_ mgdl: Double, unit: GlucoseUnit, decimals: Int? = nil) -> String {
        DisplayText.glucose(mgdl, unit: unit, decimals: decimals ?? 0)
    }
}
