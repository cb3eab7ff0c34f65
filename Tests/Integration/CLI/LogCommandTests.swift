import AppTestSupport
import Foundation
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

@testable import glucobridge

/// `log meal|insulin|exercise|glucose`, `illness` and `stress`: what they store and print.
final class LogCommandTests: XCTestCase {
    func testLogMealInsulinExerciseAndGlucose() throws {
        let cli = try CLIStore(zone: "America/Los_Angeles")
        XCTAssertEqual(
            try cli.run(["log", "meal", "--at", "2013-09-13 07:30", "--name", "Oatmeal", "--carbs", "45", "--protein", "8", "--fat", "5.5"]),
            "added meal #1 on 2013-09-13 at 07:30: Oatmeal: 45 g carbs, 8 g protein, 5.5 g fat")
        XCTAssertEqual(
            try cli.run(["log", "insulin", "--at", "2013-09-13 07:35", "--units", "4.25"]),
            "added insulin #1 on 2013-09-13 at 07:35: 4.25 units")
        XCTAssertEqual(
            try cli.run([
                "log", "exercise", "--at", "2013-09-13T18:00:00-07:00", "--name", "Walking", "--minutes", "45",
                "--intensity", "light", "--favourite",
            ]),
            "added exercise #1 on 2013-09-13 at 18:00: Walking, 45 min, light (favourite)")
        XCTAssertEqual(
            try cli.run(["log", "glucose", "--at", "2013-09-13 19:00", "--value", "3.4", "--unit", "mmol/L"]),
            "added glucose #1 on 2013-09-13 at 19:00: 3.4 mmol/L (61 mg/dL), hypo, fingerstick")

        // What the store holds, as the library reads it.
        let day = DayDate("2013-09-13")!
        let meal = try XCTUnwrap(cli.store.logs(MealLog.self, of: day).first)
        XCTAssertEqual(meal.log, MealLog(time: utc("2013-09-13T14:30:00Z"), name: "Oatmeal", carbs: 45, protein: 8, fat: 5.5))
        XCTAssertEqual(try cli.store.logs(InsulinLog.self, of: day).map(\.log), [InsulinLog(time: utc("2013-09-13T14:35:00Z"), units: 4.25)])
        let walk = try XCTUnwrap(cli.store.logs(ExerciseLog.self, of: day).first)
        XCTAssertEqual(
            walk.log, ExerciseLog(time: utc("2013-09-14T01:00:00Z"), name: "Walking", duration: 2700, intensity: .light, isFavourite: true))
        XCTAssertEqual(try cli.store.favourites(ExerciseLog.self), [walk])
        let meter = try XCTUnwrap(cli.store.logs(GlucoseLog.self, of: day).first)
        XCTAssertEqual(meter.time, utc("2013-09-14T02:00:00Z"))
        XCTAssertEqual(meter.unit, .millimolesPerLiter)
        XCTAssertEqual(meter.tag, .hypoLevel1)
        XCTAssertEqual(meter.mgdl, 3.4 * 18.016, accuracy: 1e-9)

        // Defaults: now, an unnamed meal of 0 g, a moderate session, mg/dL.
        let before = Date()
        XCTAssertTrue(try cli.run(["log", "meal"]).hasPrefix("added meal #2 on "))
        let unnamed = try XCTUnwrap(cli.store.logs(MealLog.self, from: before.addingTimeInterval(-1)).first)
        XCTAssertEqual(unnamed.log.name, "")
        XCTAssertEqual(unnamed.log.carbs, 0)
        XCTAssertLessThan(abs(unnamed.time.timeIntervalSince(before)), 60)
        _ = try cli.run(["log", "exercise", "--name", "Cycling", "--minutes", "20"])
        XCTAssertEqual(try cli.store.logs(ExerciseLog.self, from: before.addingTimeInterval(-1)).map(\.intensity), [.moderate])
        _ = try cli.run(["log", "glucose", "--value", "250"])
        XCTAssertEqual(try cli.store.logs(GlucoseLog.self, from: before.addingTimeInterval(-1)).map(\.tag), [.hyperLevel1])
    }

    func testLogJSON() throws {
        let cli = try CLIStore(zone: "America/Los_Angeles")
        let meal = try XCTUnwrap(
            jsonObject(
                cli.run([
                    "log", "meal", "--at", "2013-09-13T14:30:00.250Z", "--name", "Oatmeal", "--carbs", "45", "--json",
                ])) as? [String: Any])
        XCTAssertEqual(meal["kind"] as? String, "meal")
        XCTAssertEqual(meal["id"] as? Int, 1)
        XCTAssertEqual(meal["day"] as? String, "2013-09-13")
        XCTAssertEqual(meal["time"] as? String, "2013-09-13T14:30:00.250Z")
        XCTAssertEqual(meal["carbs"] as? Double, 45)
        XCTAssertEqual(meal["favourite"] as? Bool, false)
        XCTAssertNil(meal["units"], "fields of other kinds are left out")

        let glucose = try XCTUnwrap(
            jsonObject(
                cli.run([
                    "log", "glucose", "--at", "2013-09-13T15:00:00Z", "--value", "5.5", "--unit", "mmol/L", "--json",
                ])) as? [String: Any])
        XCTAssertEqual(glucose["value"] as? Double, 5.5)
        XCTAssertEqual(glucose["unit"] as? String, "mmol/L")
        XCTAssertEqual(try XCTUnwrap(glucose["mgdl"] as? Double), 99.088, accuracy: 1e-9)
        XCTAssertEqual(glucose["tag"] as? String, "in-range")
        XCTAssertEqual(glucose["reading"] as? String, "fingerstick")
        XCTAssertEqual(
            Set(glucose.keys), ["kind", "id", "day", "time", "value", "unit", "mgdl", "tag", "reading"])
    }

    func testImpossibleValuesAreRefusedWithTheStoresMessage() throws {
        let cli = try CLIStore()
        XCTAssertThrowsError(try cli.run(["log", "insulin", "--units=-2"])) { error in
            XCTAssertEqual("\(error)", "the insulin log is invalid: -2.0 units is not within 0 < units < 1000; nothing was stored")
        }
        XCTAssertThrowsError(try cli.run(["log", "meal", "--favourite"])) { error in
            XCTAssertEqual("\(error)", "the meal log is invalid: a favourite meal needs a name to be found by; nothing was stored")
        }
        XCTAssertThrowsError(try cli.run(["log", "meal", "--at", "teatime"])) { error in
            XCTAssertTrue("\(error)".hasPrefix("cannot read \"teatime\" as a time: use now, an instant"), "\(error)")
        }
        XCTAssertThrowsError(try cli.run(["log", "exercise", "--name", "Rowing", "--minutes", "10", "--intensity", "extreme"]))
        XCTAssertEqual(try cli.store.recentDays(10), [], "nothing was stored")
    }

    func testIllnessAndStressEpisodes() throws {
        let cli = try CLIStore(zone: "America/Los_Angeles")
        XCTAssertEqual(try cli.run(["illness", "start", "--at", "2013-09-13 08:00"]), "started illness #1 on 2013-09-13 at 08:00")
        XCTAssertThrowsError(try cli.run(["illness", "start", "--at", "2013-09-13 09:00"])) { error in
            XCTAssertEqual(
                "\(error)", "an illness episode is already open (since 2013-09-13 08:00 (America/Los_Angeles)); stop it before starting another")
        }
        XCTAssertEqual(
            try cli.run(["illness", "stop", "--at", "2013-09-14 10:30"]),
            "stopped illness #1, started on 2013-09-13 at 08:00: until 2013-09-14 10:30 (26 h 30 min)")
        XCTAssertThrowsError(try cli.run(["illness", "stop"])) { error in
            XCTAssertEqual("\(error)", "there is no open illness episode to stop; start one first")
        }
        let illness = try XCTUnwrap(cli.store.logs(IllnessEpisode.self).first)
        XCTAssertEqual(illness.duration, 26.5 * 3600)

        let started = try XCTUnwrap(jsonObject(cli.run(["stress", "start", "--at", "2013-09-14 21:00", "--json"])) as? [String: Any])
        XCTAssertEqual(started["kind"] as? String, "stress")
        XCTAssertEqual(started["open"] as? Bool, true)
        XCTAssertEqual(started["time"] as? String, "2013-09-15T04:00:00Z")
        XCTAssertNil(started["end"])
        XCTAssertEqual(try cli.store.openEpisode(.stress)?.start, utc("2013-09-15T04:00:00Z"))
        let stopped = try XCTUnwrap(jsonObject(cli.run(["stress", "stop", "--at", "2013-09-14 21:45", "--json"])) as? [String: Any])
        XCTAssertEqual(stopped["open"] as? Bool, false)
        XCTAssertEqual(stopped["end"] as? String, "2013-09-15T04:45:00Z")
        XCTAssertEqual(stopped["duration_seconds"] as? Double, 2700)
        XCTAssertNil(try cli.store.openEpisode(.stress))
        XCTAssertEqual(try cli.store.recentDays(5, filter: [.hadIllness, .hadStress]).map(\.date.description), ["2013-09-14"])
    }
}
