import AppTestSupport
import Foundation
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

@testable import glucobridge

/// The stored display unit, manual glucose values checked against what meters report, and
/// `--json` on every view.
final class DisplayMeasureAndInputTests: XCTestCase {
    func testDisplayedGlucoseMeasureIsUsedByViewsAndInput() throws {
        let cli = try CLIStore()
        try cli.replayDexcomCapture()
        XCTAssertEqual(try cli.store.displayUnit(), .milligramsPerDeciliter)
        XCTAssertTrue(try cli.run(["config", "--unit", "mmol/L"]).contains("unit        mmol/L"))
        XCTAssertEqual(try cli.sqlite3("SELECT display_unit FROM store_config;"), "mmol/L")
        // `log glucose` without --unit: the store's unit.
        XCTAssertEqual(
            try cli.run(["log", "glucose", "--at", "2015-07-17 08:00", "--value", "5.5"]),
            "added glucose #24 on 2015-07-17 at 08:00: 5.5 mmol/L, in range, fingerstick")
        let days = try cli.run(["days"])
        XCTAssertTrue(days.hasSuffix("glucose in mmol/L; Days in America/Los_Angeles"), days)
        XCTAssertTrue(days.contains("2015-07-17        24  4.4  ") && days.contains("  13.2  "), days)  // 79 and 237 mg/dL
        XCTAssertTrue(try cli.run(["stats", "--last", "1"]).contains("mean glucose     9.7 mmol/L"))
        let config = try XCTUnwrap(try jsonObject(try cli.run(["config", "--json"])) as? [String: Any])
        XCTAssertEqual(config["unit"] as? String, "mmol/L")
        XCTAssertEqual(config["thresholds_mgdl"] as? [String: Int], ["very_low": 54, "low": 70, "high": 180, "very_high": 250])
    }

    /// A glucose log shows its value as entered, then in the display unit when that differs: in
    /// `log`, `edit` and `remove` confirmations and in `day`.
    func testLogsShowTheDisplayedMeasureBesideTheirOwn() throws {
        let cli = try CLIStore()
        XCTAssertEqual(
            try cli.run(["log", "glucose", "--at", "2015-07-17 08:00", "--value", "120"]),
            "added glucose #1 on 2015-07-17 at 08:00: 120 mg/dL, in range, fingerstick")
        _ = try cli.run(["config", "--unit", "mmol/L"])
        XCTAssertEqual(
            try cli.run(["log", "glucose", "--at", "2015-07-17 09:00", "--value", "120", "--unit", "mg/dL"]),
            "added glucose #2 on 2015-07-17 at 09:00: 120 mg/dL (6.7 mmol/L), in range, fingerstick")
        XCTAssertEqual(
            try cli.run(["edit", "glucose", "1", "--value", "250"]),
            "changed glucose #1 on 2015-07-17 at 08:00: 250 mg/dL (13.9 mmol/L), hyper, fingerstick")
        let day = try cli.run(["day", "2015-07-17"])
        XCTAssertTrue(day.contains("08:00  glucose   1  250 mg/dL (13.9 mmol/L), hyper, fingerstick"), day)
        XCTAssertTrue(day.contains("09:00  glucose   2  120 mg/dL (6.7 mmol/L), in range, fingerstick"), day)
        XCTAssertEqual(
            try cli.run(["remove", "glucose", "2"]),
            "removed glucose #2 on 2015-07-17 at 09:00: 120 mg/dL (6.7 mmol/L), in range, fingerstick")
        // A log in the display unit shows one value.
        XCTAssertEqual(
            try cli.run(["log", "glucose", "--at", "2015-07-17 10:00", "--value", "5.5"]),
            "added glucose #2 on 2015-07-17 at 10:00: 5.5 mmol/L, in range, fingerstick")
    }

    /// 180.1 mg/dL is tagged hyper by the mg/dL edge (above 180) but is 9.997 mmol/L, shown
    /// 10.0, which by the mmol/L edge (above 10.0) would read as in range: the views in mmol/L
    /// show its tag beside it. 120 mg/dL (6.7 mmol/L) reads the same by both edges and has none.
    func testAValueBetweenTheUnitsEdgesShowsItsTag() throws {
        let cli = try CLIStore()
        _ = try cli.run(["config", "--unit", "mmol/L"])
        XCTAssertEqual(
            try cli.run(["log", "glucose", "--at", "2015-07-17 07:00", "--value", "120", "--unit", "mg/dL"]),
            "added glucose #1 on 2015-07-17 at 07:00: 120 mg/dL (6.7 mmol/L), in range, fingerstick")
        XCTAssertEqual(
            try cli.run(["log", "glucose", "--at", "2015-07-17 08:00", "--value", "180.1", "--unit", "mg/dL"]),
            "added glucose #2 on 2015-07-17 at 08:00: 180.1 mg/dL (10.0 mmol/L), hyper, fingerstick")
        XCTAssertEqual(try cli.sqlite3("SELECT mgdl, tag FROM glucose ORDER BY id;"), "120.0|in-range\n180.1|hyper-l1")
        let days = try cli.run(["days"])
        // The mean, 150.05 mg/dL (8.33 mmol/L), is no reading and reads the same by both edges.
        XCTAssertTrue(days.contains("\n2015-07-17         2  6.7  8.3  10.0 (hyper-l1)       50%  -     yes    -  "), days)
        let day = try cli.run(["day", "2015-07-17"])
        XCTAssertTrue(day.contains("2 readings, low 6.7 / avg 8.3 / high 10.0 (hyper-l1) mmol/L, 50% in range;"), day)
    }

    func testImplausibleValuesAreRefusedWithTheLikelyMeaning() throws {
        let cli = try CLIStore()
        XCTAssertThrowsError(try cli.run(["log", "glucose", "--value", "5.5"])) { error in
            XCTAssertEqual("\(error)", "5.5 mg/dL is not a plausible reading; did you mean 5.5 mmol/L? (give --unit mmol/L)")
        }
        XCTAssertThrowsError(try cli.run(["log", "glucose", "--value", "120", "--unit", "mmol/L"])) { error in
            XCTAssertEqual("\(error)", "120 mmol/L is not a plausible reading; did you mean 120 mg/dL? (give --unit mg/dL)")
        }
        for (value, unit) in [("700", "mg/dL"), ("2000", "mg/dL"), ("0.5", "mmol/L"), ("0.9", "mmol/L")] {
            XCTAssertThrowsError(try cli.run(["log", "glucose", "--value", value, "--unit", unit]), "\(value) \(unit)") { error in
                XCTAssertTrue("\(error)".contains("outside what meters report (LO below 20 mg/dL"), "\(error)")
            }
        }
        XCTAssertThrowsError(try cli.run(["log", "glucose", "--value", "19"])) { error in
            XCTAssertEqual("\(error)", "19 mg/dL is not a plausible reading; did you mean 19 mmol/L? (give --unit mmol/L)")
        }
        // The edges meters show as numbers are accepted.
        XCTAssertTrue(try cli.run(["log", "glucose", "--value", "20"]).contains("20 mg/dL"))
        XCTAssertTrue(try cli.run(["log", "glucose", "--value", "600"]).contains("600 mg/dL"))
        XCTAssertEqual(try cli.store.glucose().count, 2, "nothing refused was stored")
    }

    func testEditKeepsTheLogsOwnMeasure() throws {
        let cli = try CLIStore()
        _ = try cli.run(["log", "glucose", "--at", "2024-05-01 07:00", "--value", "5.5", "--unit", "mmol/L"])
        XCTAssertTrue(try cli.run(["edit", "glucose", "1", "--value", "6.1"]).contains("6.1 mmol/L (110 mg/dL)"))
        XCTAssertThrowsError(try cli.run(["edit", "glucose", "1", "--value", "70"])) { error in
            XCTAssertEqual("\(error)", "70 mmol/L is not a plausible reading; did you mean 70 mg/dL? (give --unit mg/dL)")
        }
        XCTAssertTrue(try cli.run(["edit", "glucose", "1", "--value", "70", "--unit", "mg/dL"]).contains("70 mg/dL, in range"))
    }
}

/// Instants in error messages are local, like every other output.
final class LocalTimeMessageEndToEndTests: XCTestCase {
    func testAlreadyOpenEpisodeSaysWhenInTheStoresZone() throws {
        let cli = try CLIStore()
        _ = try cli.run(["illness", "start", "--at", "2015-07-17 06:00"])
        let result = try runProcess(
            BuiltProducts.executable("glucobridge"), ["illness", "start", "--at", "2015-07-17 09:00", "--store", cli.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(
            result.stderr,
            "glucobridge: an illness episode is already open (since 2015-07-17 06:00 (America/Los_Angeles)); stop it before starting another\n")
    }
}

/// The live download's progress line (shown only when stderr is a terminal).
final class ProgressLineTests: XCTestCase {
    func testRendering() {
        XCTAssertEqual(ProgressLine.render("egv pages", done: 12, total: 107), "reading egv pages: 12 of 107")
        XCTAssertEqual(ProgressLine.render("records", done: 5, total: nil), "reading records: 5")
    }
}
