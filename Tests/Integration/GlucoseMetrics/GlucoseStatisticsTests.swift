import Foundation
import GlucoseMetrics
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

/// The consensus metrics on readings written to and read back from a real store, against
/// values worked out by hand.
final class GlucoseStatisticsTests: XCTestCase {
    let start = utc("2024-03-01T00:00:00Z")

    func store() throws -> SharedStore {
        let folder = try Fixtures.temporaryDirectory()
        return try SharedStore(path: folder.appendingPathComponent("store.sqlite").path, timeZone: TimeZone(identifier: "UTC")!)
    }

    /// Stores CGM readings at (minute after `start`, value) and returns everything stored.
    func stored(_ trace: [(Int, Double)], unit: GlucoseUnit = .milligramsPerDeciliter, fingersticks: [(Int, Double)] = [], in store: SharedStore)
        throws -> [StoredGlucose]
    {
        for (minute, value) in trace {
            _ = try store.add(GlucoseLog(time: start.addingTimeInterval(Double(minute) * 60), value: value, unit: unit, kind: .sensor))
        }
        for (minute, value) in fingersticks {
            _ = try store.add(GlucoseLog(time: start.addingTimeInterval(Double(minute) * 60), value: value, kind: .fingerstick))
        }
        return try store.glucose()
    }

    /// A 5-hour trace with a gap of 60 min, one of 50 min and one of 20 min inside a hypo:
    /// 32 readings, two level-1 hypos (one of them level 2), one hyper of each level.
    let trace: [(Int, Double)] = [
        (0, 100), (5, 100), (10, 65), (15, 60), (20, 50), (25, 75), (30, 68), (35, 66), (40, 120), (45, 130),
        (50, 140), (55, 200), (60, 260), (65, 270), (70, 255), (75, 190), (80, 185), (85, 150), (90, 150), (95, 150),
        // 60 minutes without data: two readings below 70 are too short, and cut off by a 50-minute gap.
        (155, 60), (160, 60),
        (210, 60), (215, 100), (220, 100), (225, 100),
        // A 20-minute gap inside a hypo below 54 is filled: 30 minutes below, an event of both levels.
        (230, 52), (235, 52), (255, 52), (260, 100), (265, 100), (270, 100),
    ]

    func testHandComputedTrace() throws {
        let store = try store()
        let readings = try stored(trace, fingersticks: [(100, 55)], in: store)
        let period = DateInterval(start: start, duration: 300 * 60)
        let s = GlucoseStatistics(readings: readings, period: period, thresholds: try store.thresholds())
        XCTAssertEqual(s.readings, 32)
        XCTAssertEqual(s.fingersticksExcluded, 1)
        XCTAssertEqual(s.interval, 300)
        // 32 readings × 5 min of 300 min.
        XCTAssertEqual(s.coveragePercent, 32.0 * 5 / 300 * 100, accuracy: 1e-9)
        // 3720 mg/dL over 32 readings.
        XCTAssertEqual(s.mean!, 116.25, accuracy: 1e-9)
        // Σ(x − 116.25)² = 125,642; ÷ 31 = 4053; √ → 63.663.
        XCTAssertEqual(s.sd!, (125_642.0 / 31).squareRoot(), accuracy: 1e-9)
        XCTAssertEqual(GlucoseStatistics.rounded(s.sd!), 63.7)
        XCTAssertEqual(GlucoseStatistics.rounded(s.cvPercent!), 54.8)
        XCTAssertNil(s.gmiPercent, "53 % coverage is below 70 %: no GMI")
        // < 54: 50, 52 × 3; 54–69: 7; 181–250: 200, 190, 185; > 250: 260, 270, 255; the rest in range.
        XCTAssertEqual(s.timeInRanges[.hypoLevel2]!, 4.0 / 32 * 100, accuracy: 1e-9)
        XCTAssertEqual(s.timeInRanges[.hypoLevel1]!, 7.0 / 32 * 100, accuracy: 1e-9)
        XCTAssertEqual(s.timeInRanges[.inRange]!, 15.0 / 32 * 100, accuracy: 1e-9)
        XCTAssertEqual(s.timeInRanges[.hyperLevel1]!, 3.0 / 32 * 100, accuracy: 1e-9)
        XCTAssertEqual(s.timeInRanges[.hyperLevel2]!, 3.0 / 32 * 100, accuracy: 1e-9)

        XCTAssertEqual(s.count(.hypoLevel1), 2)
        XCTAssertEqual(s.count(.hypoLevel2), 1)
        XCTAssertEqual(s.count(.hyperLevel1), 1)
        XCTAssertEqual(s.count(.hyperLevel2), 1)
        let hypos = s.events.filter { $0.kind == .hypoLevel1 }
        // The first hypo runs from 00:10 to 00:35 through one reading of 75 (5 minutes back is not an end).
        XCTAssertEqual(hypos[0].start, start.addingTimeInterval(10 * 60))
        XCTAssertEqual(hypos[0].end, start.addingTimeInterval(35 * 60))
        XCTAssertEqual(hypos[0].extreme, 50)
        XCTAssertFalse(hypos[0].endedByGap)
        XCTAssertEqual(hypos[1].start, start.addingTimeInterval(230 * 60))
        XCTAssertEqual(hypos[1].end, start.addingTimeInterval(255 * 60))
        let level2 = s.events.first { $0.kind == .hyperLevel2 }!
        XCTAssertEqual(level2.start, start.addingTimeInterval(60 * 60))
        XCTAssertEqual(level2.end, start.addingTimeInterval(70 * 60))
    }

    /// The consensus edges: 54 and 70 are the first values of their ranges, 180 and 250 the last;
    /// 3.9 mmol/L (70.3 mg/dL) is in range, not low.
    func testRangeEdges() throws {
        let store = try store()
        let values: [Double] = [54, 69, 70, 180, 181, 250, 251]
        let readings = try stored(values.enumerated().map { ($0.offset * 5, $0.element) }, in: store)
        let s = GlucoseStatistics(readings: readings, period: DateInterval(start: start, duration: 35 * 60), thresholds: try store.thresholds())
        let one = 100.0 / 7
        XCTAssertEqual(s.timeInRanges[.hypoLevel2]!, 0)
        XCTAssertEqual(s.timeInRanges[.hypoLevel1]!, 2 * one, accuracy: 1e-9)  // 54, 69
        XCTAssertEqual(s.timeInRanges[.inRange]!, 2 * one, accuracy: 1e-9)  // 70, 180
        XCTAssertEqual(s.timeInRanges[.hyperLevel1]!, 2 * one, accuracy: 1e-9)  // 181, 250
        XCTAssertEqual(s.timeInRanges[.hyperLevel2]!, one, accuracy: 1e-9)  // 251
        XCTAssertEqual(s.coveragePercent, 100)
        // Mean 1055 / 7 = 150.714; GMI = 3.31 + 0.02392 × 150.714 = 6.915 → 6.9 %.
        XCTAssertEqual(GlucoseStatistics.rounded(s.gmiPercent!), 6.9)
        XCTAssertEqual(GlucoseStatistics.rounded(s.sd!), 85.9)

        let mmol = try self.store()
        let inRange = try stored([(0, 3.9), (5, 10.0), (10, 3.8)], unit: .millimolesPerLiter, in: mmol)
        let m = GlucoseStatistics(readings: inRange, period: DateInterval(start: start, duration: 15 * 60), thresholds: try mmol.thresholds())
        XCTAssertEqual(m.timeInRanges[.inRange]!, 2 * 100.0 / 3, accuracy: 1e-9, "3.9 and 10.0 mmol/L are in range")
        XCTAssertEqual(m.timeInRanges[.hypoLevel1]!, 100.0 / 3, accuracy: 1e-9)
    }

    /// A sensor reporting every 15 minutes (FreeStyle Libre history): one reading is 15 minutes,
    /// so one reading below starts an event and one back ends it.
    func testFifteenMinuteSensor() throws {
        let store = try store()
        let readings = try stored([(0, 100), (15, 60), (30, 100), (45, 60), (60, 60), (75, 100), (90, 190)], in: store)
        let s = GlucoseStatistics(readings: readings, period: DateInterval(start: start, duration: 105 * 60), thresholds: try store.thresholds())
        XCTAssertEqual(s.interval, 900)
        XCTAssertEqual(s.coveragePercent, 100)
        XCTAssertEqual(s.count(.hypoLevel1), 2)
        XCTAssertEqual(s.count(.hyperLevel1), 1, "a hyper reaching the end of the data still counts")
        XCTAssertTrue(s.events.first { $0.kind == .hyperLevel1 }!.endedByGap)
    }

    /// Readings outside the period are ignored; without readings nothing is made up.
    func testEmptyPeriod() throws {
        let store = try store()
        let readings = try stored(trace, in: store)
        let s = GlucoseStatistics(
            readings: readings, period: DateInterval(start: start.addingTimeInterval(-86_400), duration: 3600), thresholds: .consensus)
        XCTAssertEqual(s.readings, 0)
        XCTAssertEqual(s.coveragePercent, 0)
        XCTAssertNil(s.mean)
        XCTAssertNil(s.gmiPercent)
        XCTAssertTrue(s.events.isEmpty)
    }

    /// The AGP percentiles: linear between order statistics, as R's default quantile.
    func testQuantiles() {
        XCTAssertEqual(AmbulatoryProfile.quantile([10, 20, 30, 40, 50], 0.5), 30)
        XCTAssertEqual(AmbulatoryProfile.quantile([10, 20, 30, 40], 0.25), 17.5)
        XCTAssertEqual(AmbulatoryProfile.quantile([10, 20, 30, 40, 50], 0.95), 48, accuracy: 1e-9)
    }
}
