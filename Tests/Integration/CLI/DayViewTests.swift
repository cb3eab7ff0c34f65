import AppTestSupport
import Foundation
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

@testable import glucobridge

/// `days`, `day DATE` and `favourite DATE` on a store holding the replayed Dexcom capture and
/// logs entered on the command line.
final class DayViewTests: XCTestCase {
    /// 2015-07-17 (New York): the capture's 23 sensor readings, a meal, a walk, a hypo on a meter.
    /// 2015-07-16: an illness over the night into the 17th, a stress episode, an in-range value.
    /// 2015-07-15: a favourite Day without logs.
    func makeStore() throws -> CLIStore {
        let cli = try CLIStore(zone: "America/New_York")
        try cli.replayDexcomCapture()
        for arguments in [
            ["log", "meal", "--at", "2015-07-17 12:30", "--name", "Oatmeal", "--carbs", "45", "--protein", "8", "--fat", "5"],
            ["log", "exercise", "--at", "2015-07-17 18:00", "--name", "Walking", "--minutes", "45", "--intensity", "light"],
            ["log", "glucose", "--at", "2015-07-17 07:05", "--value", "3.4", "--unit", "mmol/L"],
            ["log", "glucose", "--at", "2015-07-16 09:00", "--value", "110"],
            ["illness", "start", "--at", "2015-07-16 22:00"], ["illness", "stop", "--at", "2015-07-17 06:30"],
            ["stress", "start", "--at", "2015-07-16 14:00"], ["stress", "stop", "--at", "2015-07-16 15:15"],
            ["favourite", "2015-07-15"],
        ] {
            _ = try cli.run(arguments)
        }
        return cli
    }

    func testDaysTable() throws {
        let cli = try makeStore()
        // The 17th's low / average / high, computed by the sqlite3 program from the rows.
        let aggregates = try cli.sqlite3(
            """
            SELECT count(*), min(mgdl), round(avg(mgdl)), max(mgdl),
                   round(100.0 * sum(tag = 'in-range') / count(*))
            FROM glucose g JOIN day d ON d.id = g.day_id WHERE d.date = '2015-07-17';
            """)
        XCTAssertEqual(aggregates, "24|61.2544|169.0|237.0|50.0")
        XCTAssertEqual(
            try cli.run(["days"]),
            """
            day         readings  low  avg  high  in range  hypo  hyper  exercise  stress  illness  favourite
            2015-07-17        24   61  169   237       50%  yes   yes    yes       -       yes      -
            2015-07-16         1  110  110   110      100%  -     -      -         yes     yes      -
            2015-07-15         0    -    -     -         -  -     -      -         -       -        yes
            glucose in mg/dL; Days in America/New_York
            """)
        XCTAssertEqual(try cli.run(["days", "--last", "1"]).split(separator: "\n").count, 3)
    }

    func testDaysFilters() throws {
        let cli = try makeStore()
        func dates(_ flags: [String]) throws -> [String] {
            try cli.run(["days"] + flags).split(separator: "\n").dropFirst().dropLast().map { String($0.prefix(10)) }
        }
        XCTAssertEqual(try dates(["--hypo"]), ["2015-07-17"])
        XCTAssertEqual(try dates(["--hyper"]), ["2015-07-17"])
        XCTAssertEqual(try dates(["--exercise"]), ["2015-07-17"])
        XCTAssertEqual(try dates(["--stress"]), ["2015-07-16"])
        XCTAssertEqual(try dates(["--illness"]), ["2015-07-17", "2015-07-16"])
        XCTAssertEqual(try dates(["--favourites"]), ["2015-07-15"])
        XCTAssertEqual(try dates(["--illness", "--stress"]), ["2015-07-16"])
        XCTAssertEqual(try cli.run(["days", "--hypo", "--stress"]), "no Days match")
        XCTAssertEqual(try CLIStore().run(["days"]), "no Days stored")
        XCTAssertThrowsError(try cli.run(["days", "--last=-1"])) { XCTAssertEqual("\($0)", "--last must be 0 or more, not -1") }
    }

    func testDaysJSON() throws {
        let cli = try makeStore()
        let days = try XCTUnwrap(jsonObject(cli.run(["days", "--json"])) as? [[String: Any]])
        XCTAssertEqual(days.map { $0["date"] as? String }, ["2015-07-17", "2015-07-16", "2015-07-15"])
        let day = days[0]
        XCTAssertEqual(day["readings"] as? Int, 24)
        XCTAssertEqual(try XCTUnwrap(day["low"] as? Double), 3.4 * 18.016, accuracy: 1e-9)
        XCTAssertEqual(day["high"] as? Double, 237)
        XCTAssertEqual(try XCTUnwrap(day["time_in_range"] as? Double), 12.0 / 24, accuracy: 1e-12)
        XCTAssertEqual(day["tag_counts"] as? [String: Int], ["hypo-l2": 0, "hypo-l1": 1, "in-range": 12, "hyper-l1": 11, "hyper-l2": 0])
        XCTAssertEqual(day["carbs"] as? Double, 45)
        XCTAssertEqual(day["had_hypo"] as? Bool, true)
        XCTAssertEqual(day["had_illness"] as? Bool, true)
        XCTAssertEqual(day["favourite"] as? Bool, false)
        XCTAssertTrue(days[2]["low"] is NSNull, "a Day without readings has null low/average/high")
        XCTAssertEqual(days[2]["favourite"] as? Bool, true)
        XCTAssertEqual((try jsonObject(CLIStore().run(["days", "--json"])) as? [Any])?.count, 0)
    }

    func testDayShowsItsLogsInTimeOrder() throws {
        let cli = try makeStore()
        let lines = try cli.run(["day", "2015-07-17"]).split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines[0],
            "2015-07-17 (America/New_York): 24 readings, low 61 / avg 169 / high 237 mg/dL, 50% in range; "
                + "45 g carbs, 8 g protein, 5 g fat; hypo, hyper, exercise, illness")
        XCTAssertEqual(lines[1], "time   log       id  what")
        XCTAssertEqual(lines[2], "07:05  glucose   24  3.4 mmol/L (61 mg/dL), hypo, fingerstick")
        XCTAssertEqual(lines[3], "12:30  meal       1  Oatmeal: 45 g carbs, 8 g protein, 5 g fat")
        XCTAssertEqual(lines[4], "18:00  exercise   1  Walking, 45 min, light")
        XCTAssertEqual(lines[5], "20:18  glucose    1  79 mg/dL, in range, sensor [imported: dexcom:SM44792675]")
        XCTAssertEqual(lines.last, "22:08  glucose   23  224 mg/dL, hyper, sensor [imported: dexcom:SM44792675]")
        XCTAssertEqual(lines.count, 2 + 24 + 2)

        // The illness started the evening before: it is on the 16th, with the stress episode.
        XCTAssertEqual(
            try cli.run(["day", "2015-07-16"]),
            """
            2015-07-16 (America/New_York): 1 reading, low 110 / avg 110 / high 110 mg/dL, 100% in range; 0 g carbs, 0 g protein, 0 g fat; stress, illness
            time   log      id  what
            09:00  glucose  25  110 mg/dL, in range, fingerstick
            14:00  stress    1  until 15:15 (1 h 15 min)
            22:00  illness   1  until 2015-07-17 06:30 (8 h 30 min)
            """)
        XCTAssertEqual(
            try cli.run(["day", "2015-07-15"]),
            """
            2015-07-15 (America/New_York): no glucose readings; 0 g carbs, 0 g protein, 0 g fat; favourite
            no logs
            """)
        XCTAssertEqual(try cli.run(["day", "2015-07-01"]), "2015-07-01: no logs (the store has no such Day)")
        XCTAssertThrowsError(try cli.run(["day", "17/07/2015"])) { error in
            XCTAssertEqual("\(error)", "cannot read \"17/07/2015\" as a Day: use YYYY-MM-DD (2024-05-01), today or yesterday")
        }
    }

    func testDayJSON() throws {
        let cli = try makeStore()
        let view = try XCTUnwrap(jsonObject(cli.run(["day", "2015-07-16", "--json"])) as? [String: Any])
        XCTAssertEqual(view["day"] as? String, "2015-07-16")
        XCTAssertEqual(view["time_zone"] as? String, "America/New_York")
        XCTAssertEqual((view["summary"] as? [String: Any])?["had_stress"] as? Bool, true)
        let logs = try XCTUnwrap(view["logs"] as? [[String: Any]])
        XCTAssertEqual(logs.map { $0["kind"] as? String }, ["glucose", "stress", "illness"])
        XCTAssertEqual(logs.map { $0["time"] as? String }, ["2015-07-16T13:00:00Z", "2015-07-16T18:00:00Z", "2015-07-17T02:00:00Z"])
        XCTAssertEqual(logs[2]["end"] as? String, "2015-07-17T10:30:00Z")
        XCTAssertEqual(logs[2]["duration_seconds"] as? Double, 30_600)
        let imported = try XCTUnwrap(jsonObject(cli.run(["day", "2015-07-17", "--json"])) as? [String: Any])
        let sensor = try XCTUnwrap((imported["logs"] as? [[String: Any]])?.last)
        XCTAssertEqual(sensor["source"] as? String, "dexcom:SM44792675")
        XCTAssertEqual(sensor["record_key"] as? String, "egv:11878")
        XCTAssertEqual(sensor["reading"] as? String, "sensor")
        let none = try XCTUnwrap(jsonObject(cli.run(["day", "2015-07-01", "--json"])) as? [String: Any])
        XCTAssertTrue(none["summary"] is NSNull)
        XCTAssertEqual((none["logs"] as? [Any])?.count, 0)
    }

    /// On the Day the clocks go back, 01:30 happens twice: the view shows each time's offset.
    func testDayAcrossTheClockChange() throws {
        let cli = try CLIStore(zone: "America/Los_Angeles")
        _ = try cli.run(["log", "glucose", "--at", "2013-11-03 01:30", "--value", "100"])
        _ = try cli.run(["log", "glucose", "--at", "2013-11-03T01:30-08:00", "--value", "110"])
        _ = try cli.run(["log", "meal", "--at", "2013-11-03 23:59", "--name", "Late"])
        // 07:59 UTC on the 4th is still the 3rd (a 25-hour Day).
        _ = try cli.run(["log", "meal", "--at", "2013-11-04T07:59:00Z", "--name", "Later"])
        _ = try cli.run(["log", "meal", "--at", "2013-11-04T08:00:00Z", "--name", "Next day"])
        XCTAssertEqual(
            try cli.run(["day", "2013-11-03"]),
            """
            2013-11-03 (America/Los_Angeles): 2 readings, low 100 / avg 105 / high 110 mg/dL, 100% in range; 0 g carbs, 0 g protein, 0 g fat
            time          log      id  what
            01:30 -07:00  glucose   1  100 mg/dL, in range, fingerstick
            01:30 -08:00  glucose   2  110 mg/dL, in range, fingerstick
            23:59 -08:00  meal      1  Late: 0 g carbs, 0 g protein, 0 g fat
            23:59 -08:00  meal      2  Later: 0 g carbs, 0 g protein, 0 g fat
            """)
        XCTAssertEqual(try cli.store.logs(MealLog.self, of: DayDate("2013-11-04")!).map(\.name), ["Next day"])
        // A time the clocks skip on the spring-forward Day.
        XCTAssertThrowsError(try cli.run(["log", "meal", "--at", "2013-03-10 02:30"])) { error in
            XCTAssertEqual("\(error)", "2013-03-10 02:30 does not exist in America/Los_Angeles: the clocks skip it")
        }
        _ = try cli.run(["log", "meal", "--at", "2013-03-10 03:00", "--name", "After"])
        XCTAssertEqual(try cli.store.logs(MealLog.self, of: DayDate("2013-03-10")!).map(\.time), [utc("2013-03-10T10:00:00Z")])
    }

    func testFavouriteTogglesADay() throws {
        let cli = try makeStore()
        XCTAssertEqual(try cli.run(["favourite", "2015-07-17"]), "2015-07-17 is now a favourite")
        XCTAssertEqual(try cli.store.favouriteDays().map(\.description), ["2015-07-15", "2015-07-17"])
        XCTAssertEqual(try cli.run(["favourite", "2015-07-17"]), "2015-07-17 is no longer a favourite")
        let json = try XCTUnwrap(jsonObject(cli.run(["favourite", "2015-07-15", "--json"])) as? [String: Any])
        XCTAssertEqual(json["day"] as? String, "2015-07-15")
        XCTAssertEqual(json["favourite"] as? Bool, false)
        XCTAssertEqual(try cli.store.favouriteDays(), [])
        // A Day the store does not hold is created to hold the mark.
        XCTAssertEqual(try cli.run(["favourite", "2015-08-01"]), "2015-08-01 is now a favourite")
        XCTAssertEqual(try cli.store.recentDays(1).map(\.isFavourite), [true])
    }
}
