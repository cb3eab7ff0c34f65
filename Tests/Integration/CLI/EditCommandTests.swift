import AppTestSupport
import Foundation
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

@testable import glucobridge

/// `edit KIND ID` and `remove KIND ID`.
final class EditCommandTests: XCTestCase {
    func testEditChangesOnlyTheGivenValuesAndMovesTheDay() throws {
        let cli = try CLIStore(zone: "America/Los_Angeles")
        _ = try cli.run(["log", "meal", "--at", "2013-09-13 12:00", "--name", "Lunch", "--carbs", "50", "--protein", "20"])
        XCTAssertEqual(
            try cli.run(["edit", "meal", "1", "--carbs", "55", "--at", "2013-09-14 00:30", "--favourite"]),
            "changed meal #1 on 2013-09-14 at 00:30: Lunch: 55 g carbs, 20 g protein, 0 g fat (favourite)")
        XCTAssertEqual(try cli.store.logs(MealLog.self, of: DayDate("2013-09-13")!), [])
        XCTAssertEqual(
            try cli.store.logs(MealLog.self, of: DayDate("2013-09-14")!).map(\.log),
            [MealLog(time: utc("2013-09-14T07:30:00Z"), name: "Lunch", carbs: 55, protein: 20, isFavourite: true)])
        XCTAssertEqual(try cli.store.recentDays(5).map(\.date.description), ["2013-09-14", "2013-09-13"], "the Day left stays")
        _ = try cli.run(["edit", "meal", "1", "--no-favourite"])
        XCTAssertEqual(try cli.store.favourites(MealLog.self), [])

        _ = try cli.run(["log", "insulin", "--at", "2013-09-13 08:00", "--units", "3"])
        XCTAssertEqual(try cli.run(["edit", "insulin", "1", "--units", "3.5"]), "changed insulin #1 on 2013-09-13 at 08:00: 3.5 units")

        _ = try cli.run(["log", "glucose", "--at", "2013-09-13 09:00", "--value", "100"])
        XCTAssertEqual(
            try cli.run(["edit", "glucose", "1", "--value", "3.5", "--unit", "mmol/L"]),
            "changed glucose #1 on 2013-09-13 at 09:00: 3.5 mmol/L (63 mg/dL), hypo, fingerstick")

        _ = try cli.run(["log", "exercise", "--at", "2013-09-13 18:00", "--name", "Walking", "--minutes", "30"])
        XCTAssertEqual(
            try cli.run(["edit", "exercise", "1", "--minutes", "90", "--intensity", "vigorous", "--name", "Hiking"]),
            "changed exercise #1 on 2013-09-13 at 18:00: Hiking, 1 h 30 min, vigorous")

        _ = try cli.run(["illness", "start", "--at", "2013-09-13 06:00"])
        XCTAssertEqual(
            try cli.run(["edit", "illness", "1", "--at", "2013-09-13 05:00", "--end", "2013-09-13 20:00"]),
            "changed illness #1 on 2013-09-13 at 05:00: until 20:00 (15 h)")
        XCTAssertNil(try cli.store.openEpisode(.illness), "an end closes the episode")
        let json = try XCTUnwrap(jsonObject(cli.run(["edit", "illness", "1", "--end", "2013-09-13 21:00", "--json"])) as? [String: Any])
        XCTAssertEqual(json["duration_seconds"] as? Double, 16 * 3600)
    }

    func testEditRefusesOptionsOfOtherKindsAndEmptyEdits() throws {
        let cli = try CLIStore()
        _ = try cli.run(["log", "insulin", "--at", "2013-09-13 08:00", "--units", "3"])
        XCTAssertThrowsError(try cli.run(["edit", "insulin", "1", "--carbs", "40"])) { error in
            XCTAssertEqual("\(error)", "--carbs does not apply to an insulin log; an insulin log takes --at, --units")
        }
        XCTAssertThrowsError(try cli.run(["edit", "insulin", "1"])) { error in
            XCTAssertEqual("\(error)", "nothing to change: an insulin log takes --at, --units")
        }
        XCTAssertThrowsError(try cli.run(["edit", "stress", "1", "--end", "2013-09-13 09:00"])) { error in
            XCTAssertEqual("\(error)", "there is no stress log #1 in the store; it may have been removed by another program — read the Day again")
        }
        XCTAssertThrowsError(try cli.run(["edit", "sleep", "1", "--at", "now"]))
        _ = try cli.run(["log", "glucose", "--at", "2013-09-13 08:00", "--value", "100"])
        XCTAssertThrowsError(try cli.run(["edit", "glucose", "1", "--unit", "mmol/L"])) { error in
            XCTAssertEqual("\(error)", "--unit needs --value: give the value in that unit")
        }
        XCTAssertEqual(try cli.store.logs(GlucoseLog.self).map(\.value), [100])
        XCTAssertEqual(try cli.store.logs(InsulinLog.self).map(\.units), [3])
    }

    func testImportedLogsAreRefusedWithTheTypedErrorsMessage() throws {
        let cli = try CLIStore(zone: "America/New_York")
        try cli.replayDexcomCapture()
        let first = try XCTUnwrap(cli.store.logs(GlucoseLog.self).first)
        XCTAssertEqual(first.source?.description, "dexcom:SM44792675")
        let before = try cli.sqlite3(".dump")
        let message =
            "glucose log #\(first.id.rawValue) was imported from the device dexcom:SM44792675 and cannot be edited or removed: "
            + "a re-import would bring the device's record back; add a corrected log instead"
        XCTAssertThrowsError(try cli.run(["remove", "glucose", "\(first.id.rawValue)"])) { XCTAssertEqual("\($0)", message) }
        XCTAssertThrowsError(try cli.run(["edit", "glucose", "\(first.id.rawValue)", "--value", "90"])) { XCTAssertEqual("\($0)", message) }
        XCTAssertEqual(try cli.sqlite3(".dump"), before)

        // An imported exercise session can be marked favourite, not edited.
        _ = try cli.sqlite3(
            """
            INSERT INTO exercise (day_id, time, name, duration_seconds, intensity, source_id, device_record_key)
            VALUES (1, '2015-07-18 01:00:00.000', 'Running', 1200, 'vigorous', 1, 'session:1');
            """)
        XCTAssertEqual(
            try cli.run(["edit", "exercise", "1", "--favourite"]),
            "changed exercise #1 on 2015-07-17 at 21:00: Running, 20 min, vigorous (favourite) [imported: dexcom:SM44792675]")
        XCTAssertThrowsError(try cli.run(["edit", "exercise", "1", "--minutes", "25"])) { error in
            XCTAssertTrue("\(error)".hasPrefix("exercise log #1 was imported from the device dexcom:SM44792675"), "\(error)")
        }
    }

    func testRemove() throws {
        let cli = try CLIStore(zone: "America/Los_Angeles")
        _ = try cli.run(["log", "meal", "--at", "2013-09-13 12:00", "--name", "Lunch", "--carbs", "50"])
        _ = try cli.run(["log", "meal", "--at", "2013-09-13 19:00", "--name", "Dinner", "--carbs", "70"])
        _ = try cli.run(["stress", "start", "--at", "2013-09-13 09:00"])
        XCTAssertEqual(try cli.run(["remove", "meal", "1"]), "removed meal #1 on 2013-09-13 at 12:00: Lunch: 50 g carbs, 0 g protein, 0 g fat")
        let removed = try XCTUnwrap(jsonObject(cli.run(["remove", "stress", "1", "--json"])) as? [String: Any])
        XCTAssertEqual(removed["kind"] as? String, "stress")
        XCTAssertEqual(removed["open"] as? Bool, true)
        XCTAssertEqual(try cli.store.logs(of: DayDate("2013-09-13")!).meals.map(\.name), ["Dinner"])
        XCTAssertEqual(try cli.store.logs(StressEpisode.self), [])
        XCTAssertThrowsError(try cli.run(["remove", "meal", "1"])) { error in
            XCTAssertEqual("\(error)", "there is no meal log #1 in the store; it may have been removed by another program — read the Day again")
        }
        _ = try cli.run(["remove", "meal", "2"])
        XCTAssertEqual(try cli.store.recentDays(5).map(\.date.description), ["2013-09-13"], "the Day stays")
    }
}
