import Foundation
import GlucoseMetrics
import ImportTestSupport
import Model
import Report
import Simulators
import Store
import TestSupport
import XCTest

/// The AGP report of a generated 14-day import (a simulated Dexcom receiver session replayed by
/// the `glucobridge` binary): its structure, and its picture as Chromium renders it.
final class ReportRenderingTests: XCTestCase {
    static let zone = "Europe/Berlin"
    /// The first reading: local midnight of 2026-11-01 in Berlin (CET, +01:00).
    static let first = utc("2026-10-31T23:00:00Z")

    /// A store holding the 14 Days of ``GeneratedHistory`` and some meals, doses and exercise,
    /// and the report `glucobridge report` wrote of it.
    func makeReport(in folder: URL, extraArguments: [String] = []) throws -> (store: SharedStore, html: String, url: URL) {
        let capture = folder.appendingPathComponent("receiver-14d.pcap")
        try GeneratedHistory.record(endingAt: Self.first.addingTimeInterval(Double(14 * 288 - 1) * 300), to: capture)
        let storePath = folder.appendingPathComponent("store.sqlite").path
        let replay = try runProcess(BuiltProducts.executable("glucobridge"), ["replay", capture.path, "--store", storePath, "--tz", Self.zone])
        XCTAssertEqual(replay.status, 0, replay.stderr)
        let store = try SharedStore(path: storePath)
        for day in 0..<14 {
            let midnight = Self.first.addingTimeInterval(Double(day) * 86_400)
            _ = try store.add(MealLog(time: midnight.addingTimeInterval(7.5 * 3600), name: "Breakfast", carbs: 45))
            _ = try store.add(InsulinLog(time: midnight.addingTimeInterval(7.4 * 3600), units: 4))
            _ = try store.add(MealLog(time: midnight.addingTimeInterval(19 * 3600), name: "Dinner", carbs: 60))
            if day % 2 == 0 {
                _ = try store.add(ExerciseLog(time: midnight.addingTimeInterval(17 * 3600), name: "Run", duration: 45 * 60, intensity: .moderate))
            }
        }
        let url = folder.appendingPathComponent("report.html")
        let result = try runProcess(BuiltProducts.executable("glucobridge"), ["report", "--store", storePath, "--output", url.path] + extraArguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        if extraArguments.isEmpty {
            XCTAssertTrue(result.stdout.hasPrefix("wrote \(url.path): 2026-11-01 to 2026-11-14 (Europe/Berlin)"), result.stdout)
        }
        return (store, try String(contentsOf: url, encoding: .utf8), url)
    }

    func testStructure() throws {
        let folder = try Fixtures.temporaryDirectory()
        let (store, html, _) = try makeReport(in: folder)
        // Self-contained: no script, nothing fetched.
        for forbidden in ["<script", "http://", "https://", "src=", "@import", "url("] {
            XCTAssertFalse(html.contains(forbidden), "the page contains \(forbidden)")
        }
        XCTAssertTrue(html.contains("@page"))
        XCTAssertTrue(html.contains("14 Days: 2026-11-01 to 2026-11-14 (Europe/Berlin)"))
        // One AGP chart, one ranges bar, one profile per Day.
        XCTAssertEqual(html.components(separatedBy: "<svg id=\"agp\"").count - 1, 1)
        XCTAssertEqual(html.components(separatedBy: "<svg id=\"time-in-ranges\"").count - 1, 1)
        XCTAssertEqual(html.components(separatedBy: "<svg class=\"daily\"").count - 1, 14)
        XCTAssertEqual(html.components(separatedBy: "class=\"exercise\"").count - 1, 7)
        XCTAssertEqual(html.components(separatedBy: "class=\"meal\"").count - 1, 28)
        XCTAssertEqual(html.components(separatedBy: "class=\"insulin\"").count - 1, 14)
        XCTAssertTrue(html.contains("glucose (mg/dL)"))
        XCTAssertTrue(html.contains("time of day (Europe/Berlin)"))
        XCTAssertTrue(html.contains("15-minute bins"))
        XCTAssertFalse(html.contains("coverage-warning"), "the generated history covers more than 70 %")

        // The ranges bar stacks the five shares to the full height, as the statistics give them.
        let period = DateInterval(start: Self.first, end: Self.first.addingTimeInterval(14 * 86_400))
        let statistics = GlucoseStatistics(readings: try store.glucose(), period: period, thresholds: try store.thresholds())
        XCTAssertEqual(statistics.readings, 14 * 288 - 24 - 4)
        let heights = try ranges(in: html)
        XCTAssertEqual(heights.count, 5)
        XCTAssertEqual(heights.values.reduce(0, +), 204, accuracy: 0.3)
        for tag in GlucoseTag.allCases {
            let share = statistics.timeInRanges[tag]!
            XCTAssertGreaterThan(share, 0, "\(tag)")
            // Proportional, except that a small share is drawn 3 units high and in range gives up the room.
            if tag != .inRange { XCTAssertEqual(heights[tag.rawValue]!, max(3, share / 100 * 204), accuracy: 0.06, "\(tag)") }
        }
        // The hypo list has one row per level-1 event.
        let rows = html.components(separatedBy: "id=\"hypo-events\"")[1].components(separatedBy: "</table>")[0]
        XCTAssertEqual(rows.components(separatedBy: "<tr><td>").count - 1, statistics.count(.hypoLevel1))
        XCTAssertGreaterThan(statistics.count(.hypoLevel2), 0)
    }

    /// In mmol/L, and with coverage too low, the page says so.
    func testMmolAndLowCoverage() throws {
        let folder = try Fixtures.temporaryDirectory()
        let (_, html, _) = try makeReport(in: folder, extraArguments: ["--unit", "mmol/L", "--from", "2026-10-20", "--to", "2026-11-02"])
        XCTAssertTrue(html.contains("glucose (mmol/L)"))
        XCTAssertTrue(html.contains("In range 3.9–10.0"))
        XCTAssertTrue(html.contains("id=\"coverage-warning\""))
        // 576 readings × 5 min of 14 Days and the hour the clocks went back on 2026-10-25.
        XCTAssertTrue(html.contains("The CGM was active only 14.2 %"))
    }

    /// Chromium renders the page: the picture is not blank and shows the ranges bar (five
    /// colours stacked very high to very low), the AGP bands below it and the daily profiles
    /// below that.
    func testRendersInChromium() throws {
        let chromium = try XCTUnwrap(
            Self.chromium(),
            """
            chromium is not installed: the report must be checked in a real browser. \
            Install it (.ci/setup --tests installs it, and what the other tests use) and run the tests again.
            """)
        let folder = try Fixtures.temporaryDirectory()
        let (_, _, url) = try makeReport(in: folder)
        let png = folder.appendingPathComponent("report.png")
        var arguments = [
            "--headless", "--disable-gpu", "--hide-scrollbars", "--force-color-profile=srgb", "--force-device-scale-factor=1",
            "--window-size=780,1500", "--screenshot=\(png.path)", url.absoluteString,
        ]
        if getuid() == 0 { arguments.insert("--no-sandbox", at: 0) }
        let home = folder.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        let result = try runProcess(chromium, arguments, environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        let image = try PNGImage(contentsOf: png)
        XCTAssertEqual(image.width, 780)

        // Not blank: a fair share of the pixels is not white.
        var ink = 0
        for i in stride(from: 0, to: image.rgb.count, by: 3) where image.rgb[i] < 0xF0 || image.rgb[i + 1] < 0xF0 || image.rgb[i + 2] < 0xF0 {
            ink += 1
        }
        XCTAssertGreaterThan(Double(ink) / Double(image.width * image.height), 0.05)

        func hex(_ text: String) -> Int { Int(text.dropFirst(), radix: 16)! }
        let bar = [ReportPage.Colour.veryHigh, ReportPage.Colour.high, ReportPage.Colour.inRange, ReportPage.Colour.low, ReportPage.Colour.veryLow]
            .map { image.find(hex($0)) }
        for (index, segment) in bar.enumerated() {
            XCTAssertGreaterThan(segment.count, 40, "range \(index) is not drawn")
            if index > 0 { XCTAssertGreaterThanOrEqual(segment.minY, bar[index - 1].maxY, "range \(index) is not below range \(index - 1)") }
        }
        let outer = image.find(hex(ReportPage.Colour.outerBand))
        let inner = image.find(hex(ReportPage.Colour.innerBand))
        let median = image.find(hex(ReportPage.Colour.median))
        XCTAssertGreaterThan(outer.count, 2000)
        XCTAssertGreaterThan(inner.count, 800)
        XCTAssertGreaterThan(median.count, 300)
        XCTAssertGreaterThan(outer.minY, bar[4].maxY, "the AGP is below the ranges bar")
        XCTAssertGreaterThan(outer.maxX - outer.minX, image.width / 2, "the AGP spans the day")
        XCTAssertTrue(outer.minY <= inner.minY && inner.maxY <= outer.maxY)
        let exercise = image.find(hex(ReportPage.Colour.exercise))
        XCTAssertGreaterThan(exercise.count, 20)
        XCTAssertGreaterThan(exercise.minY, outer.maxY, "the daily profiles come after the AGP")

        // Printed, the first section (metrics, ranges, AGP) fills the first sheet and the Days the
        // second: two pages, not three.
        let pdf = folder.appendingPathComponent("report.pdf")
        var print = arguments.filter { !$0.hasPrefix("--screenshot") && !$0.hasPrefix("--window-size") && $0 != url.absoluteString }
        print += ["--no-pdf-header-footer", "--print-to-pdf=\(pdf.path)", url.absoluteString]
        let printed = try runProcess(chromium, print, environment: environment)
        XCTAssertEqual(printed.status, 0, printed.stderr)
        let text = String(decoding: try Data(contentsOf: pdf), as: UTF8.self)
        let pages = try NSRegularExpression(pattern: "/Type\\s*/Page[^s]").numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text))
        XCTAssertEqual(pages, 2)

        if let docs = ProcessInfo.processInfo.environment["GLUCOBRIDGE_REPORT_PICTURE"] {
            try? FileManager.default.removeItem(atPath: docs)
            try FileManager.default.copyItem(at: png, to: URL(fileURLWithPath: docs))
        }
    }

    /// The `chromium` (or `chromium-browser`) program on PATH.
    static func chromium() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            for name in ["chromium", "chromium-browser"] {
                let url = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
        }
        return nil
    }

    /// The height of each range's rect in the bar, by tag.
    func ranges(in html: String) throws -> [String: Double] {
        var heights: [String: Double] = [:]
        for part in html.components(separatedBy: "<rect class=\"range\" data-range=\"").dropFirst() {
            let tag = String(part.prefix { $0 != "\"" })
            let height = part.components(separatedBy: "height=\"")[1].prefix { $0 != "\"" }
            heights[tag] = try XCTUnwrap(Double(height))
        }
        return heights
    }
}
