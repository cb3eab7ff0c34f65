import Foundation
import GlucoseMetrics
import ImportTestSupport
import Model
import Pipeline
import Report
import Store
import TestSupport
import XCTest

/// The report of a period longer than four weeks: a weekly summary of every Day, and the daily
/// profiles of the last 28 Days only.
final class LongReportTests: XCTestCase {
    let start = utc("2024-03-01T00:00:00Z")
    let days = 40

    /// A store with `days` Days of CGM readings every five minutes (a saw from 60 to 259 mg/dL
    /// that dips below 70 for 50 minutes every 1000 minutes) and two meals a Day.
    func makeStore() throws -> SharedStore {
        let folder = try Fixtures.temporaryDirectory()
        let store = try SharedStore(path: folder.appendingPathComponent("store.sqlite").path, timeZone: TimeZone(identifier: "UTC")!)
        let count = days * 288
        let readings = (0..<count).map { index in
            GlucoseReading(
                time: start.addingTimeInterval(Double(index) * 300), mgdl: Double(60 + index % 200), kind: .sensor,
                trend: .flat, noise: 1, recordKey: "egv:\(index)", deviceTime: 400_000_000 + Int64(index) * 300)
        }
        let end = start.addingTimeInterval(Double(count) * 300)
        _ = try store.save(
            ImportBatch(
                source: DeviceSource(family: "dexcom", serial: "SM00000001", model: "G4Receiver"), startedAt: end, mode: .live,
                origin: nil, clock: ClockReport(hostTime: end, deviceTime: nil, method: .hostAnchored), glucose: readings,
                recordsRead: count))
        for day in 0..<days {
            let midnight = start.addingTimeInterval(Double(day) * 86_400)
            _ = try store.add(MealLog(time: midnight.addingTimeInterval(8 * 3600), name: "Breakfast", carbs: 40))
            _ = try store.add(MealLog(time: midnight.addingTimeInterval(19 * 3600), name: "Dinner", carbs: 60))
        }
        return store
    }

    func testALongPeriodIsSummarisedByWeekAndDrawsTheLast28Days() throws {
        let store = try makeStore()
        let period = DateInterval(start: start, duration: Double(days) * 86_400)
        let input = try ReportInput(store: store, period: period, unit: .milligramsPerDeciliter, generated: start)
        let html = ReportPage.html(input)

        XCTAssertTrue(html.contains("40 Days: 2024-03-01 to 2024-04-09 ("))
        // The profiles of the last 28 Days: 2024-03-13 to 2024-04-09, with their meals only.
        XCTAssertEqual(html.components(separatedBy: "<svg class=\"daily\"").count - 1, ReportPage.profileDays)
        XCTAssertTrue(html.contains("Daily glucose profiles: the last 28 of 40 Days"))
        XCTAssertFalse(html.contains("aria-label=\"glucose on 2024-03-12\""))
        XCTAssertTrue(html.contains("aria-label=\"glucose on 2024-03-13\""))
        XCTAssertTrue(html.contains("aria-label=\"glucose on 2024-04-09\""))
        XCTAssertEqual(html.components(separatedBy: "class=\"meal\"").count - 1, 2 * 28)

        // The weekly summary: six weeks of seven Days from the first, the last of five.
        let table = try XCTUnwrap(html.components(separatedBy: "id=\"weekly-summary\"").dropFirst().first)
            .components(separatedBy: "</table>")[0]
        let rows = table.components(separatedBy: "<tr><td>").dropFirst().map { $0.components(separatedBy: "</td><td>") }
        XCTAssertEqual(rows.count, 6)
        XCTAssertEqual(rows.first?[0], "2024-03-01 – 2024-03-07")
        XCTAssertEqual(rows.last?[0], "2024-04-05 – 2024-04-09")
        let all = try store.glucose()
        let whole = GlucoseStatistics(readings: all, period: period, thresholds: try store.thresholds())
        for (index, row) in rows.enumerated() {
            let weekStart = start.addingTimeInterval(Double(index * 7) * 86_400)
            let weekEnd = min(weekStart.addingTimeInterval(7 * 86_400), period.end)
            let week = GlucoseStatistics(
                readings: all, period: DateInterval(start: weekStart, end: weekEnd), thresholds: try store.thresholds())
            XCTAssertEqual(row[1], DisplayText.percent(week.coveragePercent), "week \(index)")
            XCTAssertEqual(row[2], DisplayText.glucose(week.mean!, unit: .milligramsPerDeciliter, decimals: 0), "week \(index)")
            XCTAssertEqual(row[6], DisplayText.percent(week.timeInRanges[.inRange]!), "week \(index)")
            let hypos = whole.events.filter { $0.kind == .hypoLevel1 && $0.start >= weekStart && $0.start < weekEnd }.count
            XCTAssertEqual(Int(row[8].prefix { $0.isNumber }), hypos, "week \(index)")
        }
        // Every hypo of the period is counted in one week, and there are some.
        let counted = rows.map { Int($0[8].prefix { $0.isNumber })! }.reduce(0, +)
        XCTAssertEqual(counted, whole.count(.hypoLevel1))
        XCTAssertGreaterThan(counted, 40)
        // The list of events holds those of the 28 Days drawn.
        let drawn = utc("2024-03-13T00:00:00Z")
        let recent = whole.events.filter { $0.kind == .hypoLevel1 && $0.start >= drawn }.count
        XCTAssertTrue(html.contains("Hypoglycaemia events of the last 28 Days (\(recent) of \(counted))"))
        let listed =
            try XCTUnwrap(html.components(separatedBy: "id=\"hypo-events\"").dropFirst().first)
            .components(separatedBy: "</table>")[0].components(separatedBy: "<tr><td>").count - 1
        XCTAssertEqual(listed, recent)
        XCTAssertLessThan(recent, counted)
    }

    /// Four weeks or less: every Day has its profile and there is no weekly summary.
    func testFourWeeksDrawEveryDay() throws {
        let store = try makeStore()
        let period = DateInterval(start: start, duration: 28 * 86_400)
        let html = ReportPage.html(try ReportInput(store: store, period: period, unit: .milligramsPerDeciliter, generated: start))
        XCTAssertEqual(html.components(separatedBy: "<svg class=\"daily\"").count - 1, 28)
        XCTAssertTrue(html.contains("aria-label=\"glucose on 2024-03-01\""))
        XCTAssertFalse(html.contains("weekly-summary"))
        XCTAssertEqual(html.components(separatedBy: "class=\"meal\"").count - 1, 2 * 28)
    }
}
