import Foundation
import GlucoseMetrics
import Model
import Store

/// The AGP report (after the AGP Report v5 layout of the International Diabetes Center,
/// agpreport.org) as one self-contained HTML page: inline SVG and CSS, no script, nothing loaded
/// from anywhere. The first printed page (A4 or Letter) holds the metrics with their consensus
/// targets, the time-in-ranges bar and the AGP curve; the next holds one small profile per Day
/// (for a period longer than ``profileDays``, a weekly summary of all its Days and the profiles
/// of its last ``profileDays``) and the list of hypoglycaemia events.
///
/// Every part of the page reads each reading a bounded number of times: a year's page costs
/// about four times a quarter's.
package enum ReportPage {
    /// The most Days drawn as daily profiles: four weeks of seven. A longer period shows these
    /// last Days, after a summary of every week.
    package static let profileDays = 28

    /// The fills the page uses, fixed so that a rendering can be checked by its colours.
    package enum Colour {
        package static let veryHigh = "#e8771e"
        package static let high = "#f5c242"
        package static let inRange = "#2f9e44"
        package static let low = "#e03131"
        package static let veryLow = "#8f1010"
        package static let outerBand = "#b9d3ee"
        package static let innerBand = "#5b8fd1"
        package static let median = "#0b3a7a"
        package static let targetBand = "#e4f3e6"
        package static let exercise = "#f08c00"
        package static let meal = "#7a5230"
        package static let insulin = "#7b2cbf"
    }

    package static func html(_ input: ReportInput) -> String {
        let statistics = GlucoseStatistics(readings: input.readings, period: input.period, thresholds: input.thresholds)
        let days = input.days
        let title = "AGP report: \(days.first.map(String.init(describing:)) ?? "") to \(days.last.map(String.init(describing:)) ?? "")"
        var body = "<section class=\"first\">\n"
        body +=
            "<header><h1>Ambulatory Glucose Profile</h1><p>\(days.count) Days: \(days.first!) to \(days.last!) "
            + "(\(escape(input.zone.identifier))) · CGM readings: \(statistics.readings) · glucose in \(input.unit.rawValue)</p></header>\n"
        body += coverageNotice(statistics)
        body += "<div class=\"row\">\n" + metricsPanel(statistics, input) + rangesPanel(statistics, input) + "</div>\n"
        body += "<h2>Ambulatory glucose profile</h2>\n" + agpChart(input)
        body +=
            "<p class=\"note\">All \(days.count) Days folded onto one day, clock time in \(escape(input.zone.identifier)). "
            + "Median (line), 25–75 % (dark band) and 5–95 % (light band) of the CGM readings in \(AmbulatoryProfile.binMinutes)-minute bins; "
            + "each curve smoothed by a moving average over \(AmbulatoryProfile.smoothingBins) bins "
            + "(\(AmbulatoryProfile.binMinutes * AmbulatoryProfile.smoothingBins) min). Green band: target range "
            + "\(glucose(input.thresholds.low, input.unit))–\(glucose(input.thresholds.high, input.unit)) \(input.unit.rawValue). "
            + "Fingerstick readings left out: \(statistics.fingersticksExcluded).</p>\n"
        body += "</section>\n<section class=\"second\">\n" + dailySection(days, statistics, input)
        // Over four weeks, the events of the Days drawn; the weekly summary counts every one.
        let listed = days.count > profileDays ? days.suffix(profileDays).first?.start(in: input.zone) : nil
        body += hypoList(statistics, input, from: listed)
        body +=
            "<footer>Made by glucobridge on \(localDateTime(input.generated, input.zone)) from the local store; "
            + "targets for most adults with type 1 or type 2 diabetes (Battelino et al., Diabetes Care 2019;42:1593); "
            + "events after Battelino et al., Lancet Diabetes Endocrinol 2023;11:42.</footer>\n</section>\n"
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>\(title)</title>
            <style>
            \(style)
            </style>
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }

    static let style = """
        @page { margin: 10mm; }
        * { box-sizing: border-box; }
        body { margin: 0 auto; width: 186mm; font: 9.5pt/1.35 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #111; background: #fff; }
        h1 { font-size: 15pt; margin: 0 0 1mm; }
        h2 { font-size: 11pt; margin: 4mm 0 1.5mm; border-bottom: 0.4mm solid #333; }
        header p { margin: 0; color: #333; }
        .row { display: flex; gap: 6mm; align-items: flex-start; }
        .metrics { flex: 1.1; }
        .ranges { flex: 1; }
        table { border-collapse: collapse; width: 100%; }
        td, th { padding: 0.7mm 1mm; text-align: left; vertical-align: top; }
        tr + tr td { border-top: 0.2mm solid #ddd; }
        td.value { font-weight: bold; white-space: nowrap; }
        td.target { color: #555; font-size: 8.5pt; }
        .notice { border: 0.6mm solid #b00020; background: #fff0f0; padding: 2mm 3mm; margin: 2mm 0; font-weight: bold; }
        .note, .legend, footer { font-size: 8pt; color: #444; }
        .key { display: inline-block; width: 3mm; height: 3mm; margin: 0 1mm 0 2mm; vertical-align: middle; }
        svg text { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; }
        .second { break-before: page; }
        .days { display: grid; grid-template-columns: repeat(7, 1fr); gap: 1.5mm; }
        .day { border: 0.2mm solid #bbb; padding: 0.5mm; }
        .day p { margin: 0; font-size: 7pt; }
        .day svg { display: block; width: 100%; height: auto; }
        .events td, .events th { font-size: 8.5pt; border-top: 0.2mm solid #ddd; }
        .weeks td, .weeks th { font-size: 8pt; border-top: 0.2mm solid #ddd; white-space: nowrap; }
        .weeks svg { display: block; width: 30mm; height: 2.6mm; }
        footer { margin-top: 4mm; }
        """

    // MARK: - Metrics and ranges

    static func coverageNotice(_ s: GlucoseStatistics) -> String {
        if s.readings == 0 {
            return "<p class=\"notice\" id=\"coverage-warning\">No CGM readings in this period: there is nothing to summarise.</p>\n"
        }
        guard s.coveragePercent < GlucoseStatistics.minimumCoveragePercent else { return "" }
        return "<p class=\"notice\" id=\"coverage-warning\">The CGM was active only \(percent(s.coveragePercent)) of this period, "
            + "below the 70 % the consensus asks for: these metrics and the profile may not represent it, and GMI is not given.</p>\n"
    }

    static func metricsPanel(_ s: GlucoseStatistics, _ input: ReportInput) -> String {
        let unit = input.unit
        func row(_ name: String, _ value: String, _ target: String = "") -> String {
            "<tr><td>\(name)</td><td class=\"value\">\(value)</td><td class=\"target\">\(target)</td></tr>\n"
        }
        var rows = row("Days", "\(input.days.count)", "14 recommended")
        rows += row("Time CGM active", percent(s.coveragePercent), "target ≥ 70 %")
        rows += row("Mean glucose", s.mean.map { "\(glucose($0, unit)) \(unit.rawValue)" } ?? "–")
        rows += row("Glucose management indicator (GMI)", s.gmiPercent.map(percent) ?? "not given", s.gmiPercent == nil ? "needs ≥ 70 % active" : "")
        rows += row("Glucose variability (CV)", s.cvPercent.map(percent) ?? "–", "target ≤ 36 %")
        rows += row("Standard deviation", s.sd.map { "\(glucose($0, unit, decimals: 1)) \(unit.rawValue)" } ?? "–")
        rows += row(
            "Hypoglycaemia events", "\(s.count(.hypoLevel1))", "of them \(s.count(.hypoLevel2)) below \(glucose(input.thresholds.veryLow, unit))")
        rows += row(
            "Hyperglycaemia events", "\(s.count(.hyperLevel1))", "of them \(s.count(.hyperLevel2)) above \(glucose(input.thresholds.veryHigh, unit))")
        return "<div class=\"metrics\"><h2>Glucose statistics and targets</h2><table id=\"metrics\">\n\(rows)</table></div>\n"
    }

    /// The stacked time-in-ranges bar, very high at the top.
    static func rangesPanel(_ s: GlucoseStatistics, _ input: ReportInput) -> String {
        let t = input.thresholds
        let unit = input.unit
        let ranges: [(GlucoseTag, String, String, String)] = [
            (.hyperLevel2, Colour.veryHigh, "Very high > \(glucose(t.veryHigh, unit))", "< 5 %"),
            (.hyperLevel1, Colour.high, "High > \(glucose(t.high, unit)) to \(glucose(t.veryHigh, unit))", "< 25 % above range"),
            (.inRange, Colour.inRange, "In range \(glucose(t.low, unit))–\(glucose(t.high, unit))", "> 70 %"),
            (.hypoLevel1, Colour.low, "Low \(glucose(t.veryLow, unit)) to < \(glucose(t.low, unit))", "< 4 % below range"),
            (.hypoLevel2, Colour.veryLow, "Very low < \(glucose(t.veryLow, unit))", "< 1 %"),
        ]
        let top = 8.0
        let height = 204.0
        // Every share above 0 stays visible (at least 3 units high); in range gives up the room.
        var heights = ranges.map { s.readings == 0 ? 0 : (s.timeInRanges[$0.0] ?? 0) / 100 * height }
        let raised = heights.map { $0 > 0 ? max($0, 3) : 0 }
        heights = zip(ranges, raised).map { $0.0.0 == .inRange ? $0.1 - (raised.reduce(0, +) - heights.reduce(0, +)) : $0.1 }
        var y = top
        var svg = "<svg id=\"time-in-ranges\" viewBox=\"0 0 330 220\" width=\"100%\" role=\"img\" aria-label=\"time in ranges\">\n"
        for (index, (tag, colour, name, target)) in ranges.enumerated() {
            let share = s.timeInRanges[tag] ?? 0
            let h = heights[index]
            svg += "<rect class=\"range\" data-range=\"\(tag.rawValue)\" x=\"4\" y=\"\(f(y))\" width=\"56\" height=\"\(f(h))\" fill=\"\(colour)\"/>\n"
            let labelY = top + 14 + Double(index) * 41
            svg += "<text x=\"72\" y=\"\(f(labelY))\" font-size=\"12\"><tspan font-weight=\"bold\">\(percent(share))</tspan> \(name)</text>\n"
            svg += "<text x=\"72\" y=\"\(f(labelY + 14))\" font-size=\"10\" fill=\"#555\">target \(target)</text>\n"
            y += h
        }
        svg += "<rect x=\"4\" y=\"\(f(top))\" width=\"56\" height=\"\(f(height))\" fill=\"none\" stroke=\"#333\" stroke-width=\"0.6\"/>\n</svg>\n"
        return "<div class=\"ranges\"><h2>Time in ranges (\(unit.rawValue))</h2>\(svg)</div>\n"
    }

    // MARK: - The AGP curve

    /// The y axis top: 350 mg/dL, or 20 mmol/L.
    static func maximum(_ unit: GlucoseUnit) -> Double { unit == .milligramsPerDeciliter ? 350 : 20 * GlucoseUnit.mgdlPerMmol }

    static func agpChart(_ input: ReportInput) -> String {
        let cgm = input.readings.filter { $0.kind == .sensor }
        let profile = AmbulatoryProfile(readings: cgm.map { (input.minuteOfDay($0.time), $0.mgdl) })
        let left = 52.0
        let right = 680.0
        let top = 10.0
        let bottom = 230.0
        let highest = maximum(input.unit)
        func x(_ minute: Double) -> Double { left + minute / 1440 * (right - left) }
        func y(_ mgdl: Double) -> Double { bottom - min(max(mgdl, 0), highest) / highest * (bottom - top) }
        let t = input.thresholds
        var svg = "<svg id=\"agp\" viewBox=\"0 0 700 270\" width=\"100%\" role=\"img\" aria-label=\"ambulatory glucose profile\">\n"
        svg +=
            "<rect class=\"target\" x=\"\(f(left))\" y=\"\(f(y(Double(t.high))))\" width=\"\(f(right - left))\" height=\"\(f(y(Double(t.low)) - y(Double(t.high))))\" fill=\"\(Colour.targetBand)\"/>\n"
        // Runs of bins with data: a bin without readings breaks the bands and the line.
        var runs: [[AmbulatoryProfile.Point]] = [[]]
        for point in profile.points {
            if let point { runs[runs.count - 1].append(point) } else if !runs[runs.count - 1].isEmpty { runs.append([]) }
        }
        for run in runs where !run.isEmpty {
            for (lower, upper, colour, name) in [(0, 4, Colour.outerBand, "p5-p95"), (1, 3, Colour.innerBand, "p25-p75")] {
                let forward = run.map { "\(f(x($0.minute))),\(f(y($0.values[upper])))" }
                let back = run.reversed().map { "\(f(x($0.minute))),\(f(y($0.values[lower])))" }
                svg += "<polygon class=\"\(name)\" points=\"\((forward + back).joined(separator: " "))\" fill=\"\(colour)\"/>\n"
            }
            svg +=
                "<polyline class=\"median\" points=\"\(run.map { "\(f(x($0.minute))),\(f(y($0.values[2])))" }.joined(separator: " "))\" fill=\"none\" stroke=\"\(Colour.median)\" stroke-width=\"2.5\"/>\n"
        }
        // Axes: the thresholds and the top on y, every 3 hours on x.
        for mgdl in [Double(t.veryLow), Double(t.low), Double(t.high), Double(t.veryHigh), highest] {
            let dash = mgdl == Double(t.low) || mgdl == Double(t.high) ? "" : " stroke-dasharray=\"3 3\""
            svg +=
                "<line x1=\"\(f(left))\" x2=\"\(f(right))\" y1=\"\(f(y(mgdl)))\" y2=\"\(f(y(mgdl)))\" stroke=\"#777\" stroke-width=\"0.6\"\(dash)/>\n"
            svg += "<text x=\"\(f(left - 4))\" y=\"\(f(y(mgdl) + 4))\" font-size=\"11\" text-anchor=\"end\">\(glucose(mgdl, input.unit))</text>\n"
        }
        for hour in stride(from: 0, through: 24, by: 3) {
            let hx = x(Double(hour * 60))
            svg += "<line x1=\"\(f(hx))\" x2=\"\(f(hx))\" y1=\"\(f(top))\" y2=\"\(f(bottom + 4))\" stroke=\"#bbb\" stroke-width=\"0.5\"/>\n"
            svg += "<text x=\"\(f(hx))\" y=\"\(f(bottom + 16))\" font-size=\"11\" text-anchor=\"middle\">\(String(format: "%02d:00", hour))</text>\n"
        }
        svg += "<line x1=\"\(f(left))\" x2=\"\(f(right))\" y1=\"\(f(bottom))\" y2=\"\(f(bottom))\" stroke=\"#333\"/>\n"
        svg +=
            "<text x=\"\(f((left + right) / 2))\" y=\"\(f(bottom + 33))\" font-size=\"11\" text-anchor=\"middle\">time of day (\(escape(input.zone.identifier)))</text>\n"
        svg +=
            "<text transform=\"translate(12 \(f((top + bottom) / 2))) rotate(-90)\" font-size=\"11\" text-anchor=\"middle\">glucose (\(input.unit.rawValue))</text>\n"
        if cgm.isEmpty {
            svg +=
                "<text x=\"\(f((left + right) / 2))\" y=\"\(f((top + bottom) / 2))\" font-size=\"14\" text-anchor=\"middle\">no CGM readings</text>\n"
        }
        return svg + "</svg>\n"
    }

    // MARK: - Daily profiles

    /// The Days' section: the profiles of every Day, or for a longer period than
    /// ``profileDays`` the weekly summary and the profiles of the last ``profileDays``.
    static func dailySection(_ days: [DayDate], _ statistics: GlucoseStatistics, _ input: ReportInput) -> String {
        let logs = TimeOrdered(input)
        var html = ""
        let shown = days.suffix(profileDays)
        if days.count > profileDays {
            html += weeklySummary(days, statistics, logs, input)
            html += "<h2>Daily glucose profiles: the last \(shown.count) of \(days.count) Days</h2>\n"
        } else {
            html += "<h2>Daily glucose profiles</h2>\n"
        }
        html +=
            "<p class=\"legend\"><span class=\"key\" style=\"background:\(Colour.targetBand)\"></span> target range "
            + "<span class=\"key\" style=\"background:\(Colour.exercise)\"></span> exercise "
            + "<span class=\"key\" style=\"background:\(Colour.meal)\"></span> meal "
            + "<span class=\"key\" style=\"background:\(Colour.insulin)\"></span> insulin · "
            + "each profile 00:00–24:00, 0–\(glucose(maximum(input.unit), input.unit)) \(input.unit.rawValue)</p>\n"
        return html + "<div class=\"days\">\n" + shown.map { dailyProfile($0, input, logs) }.joined() + "</div>\n"
    }

    static func dailyProfile(_ day: DayDate, _ input: ReportInput, _ logs: TimeOrdered) -> String {
        let start = day.start(in: input.zone)
        let end = day.adding(days: 1).start(in: input.zone)
        let length = end.timeIntervalSince(start)
        let width = 100.0
        let top = 3.0
        let bottom = 54.0
        let highest = maximum(input.unit)
        func x(_ date: Date) -> Double { min(max(date.timeIntervalSince(start) / length, 0), 1) * width }
        func y(_ mgdl: Double) -> Double { bottom - min(max(mgdl, 0), highest) / highest * (bottom - top) }
        let t = input.thresholds
        var svg = "<svg class=\"daily\" viewBox=\"0 0 100 64\" role=\"img\" aria-label=\"glucose on \(day)\">\n"
        svg += "<rect x=\"0\" y=\"0\" width=\"100\" height=\"64\" fill=\"#fff\"/>\n"
        svg +=
            "<rect class=\"target\" x=\"0\" y=\"\(f(y(Double(t.high))))\" width=\"100\" height=\"\(f(y(Double(t.low)) - y(Double(t.high))))\" fill=\"\(Colour.targetBand)\"/>\n"
        for session in logs.exercise(overlapping: start, end) {
            let x0 = x(session.time)
            let x1 = max(x(session.time.addingTimeInterval(session.duration)), x0 + 0.8)
            svg +=
                "<rect class=\"exercise\" x=\"\(f(x0))\" y=\"56\" width=\"\(f(x1 - x0))\" height=\"7\" fill=\"\(Colour.exercise)\"><title>\(escape(session.name))</title></rect>\n"
        }
        for meal in logs.meals[TimeOrdered.range(logs.meals, start, end, \.time)] {
            let mx = x(meal.time)
            svg +=
                "<polygon class=\"meal\" points=\"\(f(mx - 2)),63 \(f(mx + 2)),63 \(f(mx)),57\" fill=\"\(Colour.meal)\"><title>\(escape(meal.name.isEmpty ? "meal" : meal.name)) \(DisplayText.number(meal.carbs)) g carbs</title></polygon>\n"
        }
        for dose in logs.insulin[TimeOrdered.range(logs.insulin, start, end, \.time)] {
            let ix = x(dose.time)
            svg +=
                "<rect class=\"insulin\" x=\"\(f(ix - 0.6))\" y=\"0\" width=\"1.2\" height=\"5\" fill=\"\(Colour.insulin)\"><title>\(DisplayText.number(dose.units)) units</title></rect>\n"
        }
        let cgm = logs.cgm[TimeOrdered.range(logs.cgm, start, end, \.time)]
        var lines: [[String]] = [[]]
        var previous: Date?
        for reading in cgm {
            if let previous, reading.time.timeIntervalSince(previous) > 15 * 60, !lines[lines.count - 1].isEmpty { lines.append([]) }
            lines[lines.count - 1].append("\(f(x(reading.time))),\(f(y(reading.mgdl)))")
            previous = reading.time
        }
        for line in lines where !line.isEmpty {
            svg += "<polyline class=\"glucose\" points=\"\(line.joined(separator: " "))\" fill=\"none\" stroke=\"#222\" stroke-width=\"0.7\"/>\n"
        }
        svg += "</svg>\n"
        return "<div class=\"day\"><p>\(weekday(day)) \(day)</p>\(svg)</div>\n"
    }

    // MARK: - Weekly summary

    /// One row per week of seven Days from the period's first Day (the last may be shorter): the
    /// CGM's coverage, mean, CV and time in ranges of that week, and the period's level-1 hypo
    /// events that started in it.
    static func weeklySummary(
        _ days: [DayDate], _ statistics: GlucoseStatistics, _ logs: TimeOrdered, _ input: ReportInput
    ) -> String {
        let unit = input.unit
        let t = input.thresholds
        let weeks = stride(from: 0, to: days.count, by: 7).map { days[$0..<min($0 + 7, days.count)] }
        let bounds = weeks.map { week in
            (
                max(week.first!.start(in: input.zone), input.period.start),
                min(week.last!.adding(days: 1).start(in: input.zone), input.period.end)
            )
        }
        var hypos = [Int](repeating: 0, count: weeks.count)
        for event in statistics.events where event.kind == .hypoLevel1 {
            let week = bounds.partitioningIndex { $0.1 > event.start }
            if week < weeks.count { hypos[week] += 1 }
        }
        var html =
            "<h2>Weekly summary</h2>\n<p class=\"note\">\(days.count) Days in \(weeks.count) weeks of seven from "
            + "\(days.first!); each week's CGM metrics as above, its time in ranges from very low (left) to very high (right), "
            + "and the hypoglycaemia events (below \(glucose(t.low, unit)) \(unit.rawValue)) that started in it.</p>\n"
        html +=
            "<table class=\"weeks\" id=\"weekly-summary\"><tr><th>Week</th><th>CGM active</th><th>Mean (\(unit.rawValue))</th>"
            + "<th>CV</th><th>Time in ranges</th><th>&lt; \(glucose(t.low, unit))</th><th>In range</th>"
            + "<th>&gt; \(glucose(t.high, unit))</th><th>Hypos</th></tr>\n"
        let order: [(GlucoseTag, String)] = [
            (.hypoLevel2, Colour.veryLow), (.hypoLevel1, Colour.low), (.inRange, Colour.inRange),
            (.hyperLevel1, Colour.high), (.hyperLevel2, Colour.veryHigh),
        ]
        for (index, week) in weeks.enumerated() {
            let (start, end) = bounds[index]
            let readings = Array(logs.readings[TimeOrdered.range(logs.readings, start, end, \.time)])
            let s = GlucoseStatistics(readings: readings, period: DateInterval(start: start, end: max(start, end)), thresholds: t)
            let share = { (tags: [GlucoseTag]) in tags.reduce(0.0) { $0 + (s.timeInRanges[$1] ?? 0) } }
            var bar = "<svg class=\"week-ranges\" viewBox=\"0 0 100 8\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"time in ranges\">"
            var x = 0.0
            for (tag, colour) in order {
                let width = s.readings == 0 ? 0 : (s.timeInRanges[tag] ?? 0)
                if width > 0 { bar += "<rect x=\"\(f(x))\" y=\"0\" width=\"\(f(width))\" height=\"8\" fill=\"\(colour)\"/>" }
                x += width
            }
            bar += "</svg>"
            let empty = s.readings == 0
            html +=
                "<tr><td>\(week.first!) – \(week.last!)</td><td>\(percent(s.coveragePercent))</td>"
                + "<td>\(s.mean.map { glucose($0, unit) } ?? "–")</td><td>\(s.cvPercent.map(percent) ?? "–")</td>"
                + "<td>\(bar)</td><td>\(empty ? "–" : percent(share([.hypoLevel1, .hypoLevel2])))</td>"
                + "<td>\(empty ? "–" : percent(share([.inRange])))</td>"
                + "<td>\(empty ? "–" : percent(share([.hyperLevel1, .hyperLevel2])))</td><td>\(hypos[index])</td></tr>\n"
        }
        return html + "</table>\n"
    }

    // MARK: - Hypoglycaemia events

    /// The level-1 hypoglycaemia events of the period, or those starting at or after `from`.
    static func hypoList(_ s: GlucoseStatistics, _ input: ReportInput, from: Date? = nil) -> String {
        let all = s.events.filter { $0.kind == .hypoLevel1 }
        let hypos = from.map { start in all.filter { $0.start >= start } } ?? all
        let level2 = s.events.filter { $0.kind == .hypoLevel2 }
        var html =
            from == nil
            ? "<h2>Hypoglycaemia events (\(hypos.count))</h2>\n"
            : "<h2>Hypoglycaemia events of the last \(profileDays) Days (\(hypos.count) of \(all.count))</h2>\n"
        guard !hypos.isEmpty else {
            return html + "<p>None: no 15 minutes or more below \(glucose(input.thresholds.low, input.unit)) \(input.unit.rawValue).</p>\n"
        }
        html +=
            "<table class=\"events\" id=\"hypo-events\"><tr><th>Start</th><th>Duration</th><th>Lowest (\(input.unit.rawValue))</th><th>Level</th></tr>\n"
        // Both lists are in time order: one pass finds the level-2 event within each level-1 one.
        var next = 0
        for event in hypos {
            while next < level2.count, level2[next].end < event.start { next += 1 }
            let reachedLevel2 = next < level2.count && level2[next].start <= event.end
            let duration = DisplayText.duration(event.duration(interval: s.interval)) + (event.endedByGap ? " (data stops)" : "")
            html +=
                "<tr><td>\(localDateTime(event.start, input.zone))</td><td>\(duration)</td>"
                + "<td>\(glucose(event.extreme, input.unit))</td><td>\(reachedLevel2 ? "2 (below \(glucose(input.thresholds.veryLow, input.unit)))" : "1")</td></tr>\n"
        }
        return html + "</table>\n"
    }

    // MARK: - Text

    static func glucose(_ mgdl: Int, _ unit: GlucoseUnit) -> String { glucose(Double(mgdl), unit) }

    /// Whole mg/dL (or `decimals` of them), or mmol/L to one decimal, never rounded across an edge.
    static func glucose(_ mgdl: Double, _ unit: GlucoseUnit, decimals: Int = 0) -> String {
        DisplayText.glucose(mgdl, unit: unit, decimals: decimals)
    }

    static func percent(_ value: Double) -> String { DisplayText.percent(value) }

    static func localDateTime(_ date: Date, _ zone: TimeZone) -> String { LocalTimeText.text(date, zone: zone) }

    static func weekday(_ day: DayDate) -> String {
        let names = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
        let days = CivilDate.days(year: day.year, month: day.month, day: day.day)
        return names[Int(CivilDate.floorDiv(days, 7) * -7 + days)]
    }

    static func f(_ value: Double) -> String { String(format: "%.1f", value) }

    /// `text` safe inside HTML text and attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}

/// The period's readings and logs in time order, so that a Day's or a week's are found by binary
/// search instead of a pass over the whole period.
struct TimeOrdered {
    var readings: [StoredGlucose]
    /// The CGM readings (fingersticks left out).
    var cgm: [StoredGlucose]
    var meals: [Stored<MealLog>]
    var insulin: [Stored<InsulinLog>]
    var exercise: [Stored<ExerciseLog>]
    /// The longest exercise session, which bounds how far back a session overlapping a Day starts.
    var longestExercise: TimeInterval

    init(_ input: ReportInput) {
        readings = Self.sorted(input.readings, \.time)
        cgm = readings.filter { $0.kind == .sensor }
        meals = Self.sorted(input.meals, \.time)
        insulin = Self.sorted(input.insulin, \.time)
        exercise = Self.sorted(input.exercise, \.time)
        longestExercise = exercise.map(\.duration).max() ?? 0
    }

    /// The sessions that overlap `start..<end`.
    func exercise(overlapping start: Date, _ end: Date) -> [Stored<ExerciseLog>] {
        exercise[Self.range(exercise, start.addingTimeInterval(-longestExercise), end, \.time)]
            .filter { $0.time.addingTimeInterval($0.duration) > start }
    }

    /// `items` ascending by `time` (already so when read from the store: a check, no sort).
    static func sorted<T>(_ items: [T], _ time: (T) -> Date) -> [T] {
        zip(items, items.dropFirst()).allSatisfy { time($0) <= time($1) } ? items : items.sorted { time($0) < time($1) }
    }

    /// The indexes of the items with `start ≤ time < end` in `items` ascending by `time`.
    static func range<T>(_ items: [T], _ start: Date, _ end: Date, _ time: (T) -> Date) -> Range<Int> {
        let lower = items.partitioningIndex { time($0) >= start }
        let upper = items.partitioningIndex { time($0) >= end }
        return lower..<max(lower, upper)
    }
}

extension Collection {
    /// The index of the first element for which `belongs` is true, in a collection where it is
    /// false for a prefix and true for the rest (binary search).
    func partitioningIndex(where belongs: (Element) -> Bool) -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if belongs(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}
