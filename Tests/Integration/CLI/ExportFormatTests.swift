import AppTestSupport
import Foundation
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

@testable import glucobridge

/// The export formats, on a store filled by replaying the demo capture.
final class ExportFormatTests: XCTestCase {
    func store() throws -> SharedStore {
        let folder = try Fixtures.temporaryDirectory()
        let options = try StoreOptions.parse(["--store", folder.appendingPathComponent("s.sqlite").path, "--tz", "America/New_York"])
        var replay = try ReplayCommand.parse([Fixtures.url("dexcom/ecc1-g4-receiver.pcap").path])
        replay.storeOptions = options
        try replay.run()
        return try options.open()
    }

    func testCSV() throws {
        let lines = try exported(["--format", "csv"], try store()).split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.first, "time,day,mgdl,mmol,tag,flag,kind,trend,source,record_key,device_display_time,note")
        XCTAssertEqual(lines.count, 1 + 23 + 1)
        XCTAssertEqual(lines[1], "2015-07-18T00:18:17Z,2015-07-17,79,4.4,in-range,,sensor,Flat,dexcom:SM44792675,egv:11856,2016-02-24T16:46:53,")
        XCTAssertEqual(lines[23], "2015-07-18T02:08:16Z,2015-07-17,224,12.4,hyper-l1,,sensor,Flat,dexcom:SM44792675,egv:11878,2016-02-24T18:36:53,")
    }

    func testJSON() throws {
        let data = Data(try exported(["--format", "json"], try store()).utf8)
        let objects = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        XCTAssertEqual(objects.count, 23)
        XCTAssertEqual(objects.last?["time"] as? String, "2015-07-18T02:08:16Z")
        XCTAssertEqual(objects.last?["mgdl"] as? Int, 224, "numbers are numbers")
        XCTAssertEqual(objects.last?["mmol"] as? Double, 12.4)
        XCTAssertEqual(objects.last?["tag"] as? String, "hyper-l1")
        XCTAssertNil(objects.last?["flag"], "empty fields are left out")
        XCTAssertTrue(String(decoding: data, as: UTF8.self).contains("\"mmol\" : 12.4,"))
    }

    /// A value another program wrote that glucobridge cannot read stops the export with an error
    /// naming the column and the value, in every format, as it did when the readings were read
    /// whole first.
    func testUnreadableValueIsNamed() throws {
        let store = try store()
        // The month 13 passes the column's CHECK (digit classes), not the calendar.
        _ = try sqlite3(store.path, "UPDATE glucose SET time = '2015-13-18 00:18:17.000' WHERE device_record_key = 'egv:11856';")
        for format in ["csv", "json", "nightscout"] {
            XCTAssertThrowsError(try exported(["--format", format], store), format) { error in
                XCTAssertEqual(
                    "\(error)", "database error: the store holds a value glucobridge cannot read: glucose.time = '2015-13-18 00:18:17.000'")
            }
        }
    }
}

/// Every log kind and Days exported, and the Nightscout uploads.
final class LogExportEndToEndTests: XCTestCase {
    /// The Dexcom capture (New York) and logs entered in mmol/L, insulin, a meal, an exercise
    /// session, an illness episode; the export of `kind` in `format` as JSON objects.
    func export(_ kind: String, _ format: String, _ cli: CLIStore) throws -> String {
        let result = try runProcess(BuiltProducts.executable("glucobridge"), ["export", "--kind", kind, "--format", format, "--store", cli.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout
    }

    func filledStore() throws -> CLIStore {
        let cli = try CLIStore(zone: "America/New_York")
        try cli.replayDexcomCapture()
        _ = try cli.run(["log", "glucose", "--at", "2015-07-17 07:05", "--value", "3.9", "--unit", "mmol/L"])
        _ = try cli.run(["log", "insulin", "--at", "2015-07-17 12:25", "--units", "4.5"])
        _ = try cli.run(["log", "meal", "--at", "2015-07-17 12:30", "--name", "Oatmeal, warm", "--carbs", "45", "--protein", "8"])
        _ = try cli.run(["log", "exercise", "--at", "2015-07-17 18:00", "--name", "Walking", "--minutes", "45"])
        _ = try cli.run(["illness", "start", "--at", "2015-07-16 22:00"])
        _ = try cli.run(["illness", "stop", "--at", "2015-07-17 06:30"])
        return cli
    }

    func testEveryKindAsCSVAndJSON() throws {
        let cli = try filledStore()
        XCTAssertEqual(try export("insulin", "csv", cli), "time,day,units,id\n2015-07-17T16:25:00Z,2015-07-17,4.5,1\n")
        XCTAssertEqual(
            try export("meal", "csv", cli),
            """
            time,day,name,carbs_g,protein_g,fat_g,favourite,id
            2015-07-17T16:30:00Z,2015-07-17,"Oatmeal, warm",45,8,0,false,1

            """)
        XCTAssertEqual(
            try export("illness", "csv", cli),
            "start,end,day,duration_min,open,id\n2015-07-17T02:00:00Z,2015-07-17T10:30:00Z,2015-07-16,510,false,1\n")
        XCTAssertEqual(try export("stress", "csv", cli), "start,end,day,duration_min,open,id\n")
        let meal = try XCTUnwrap(try jsonObject(try export("meal", "json", cli)) as? [[String: Any]]).first
        XCTAssertEqual(meal?["carbs_g"] as? Int, 45)
        XCTAssertEqual(meal?["favourite"] as? Bool, false)
        let glucose = try XCTUnwrap(try jsonObject(try export("glucose", "json", cli)) as? [[String: Any]])
        let entered = try XCTUnwrap(glucose.first { $0["kind"] as? String == "fingerstick" })
        XCTAssertEqual(entered["mgdl"] as? Double, 70.2624, "3.9 mmol/L is 70.2624 mg/dL, written as stored")
        XCTAssertEqual(entered["mmol"] as? Double, 3.9)
        let days = try XCTUnwrap(try jsonObject(try export("days", "json", cli)) as? [[String: Any]])
        XCTAssertEqual(days.map { $0["day"] as? String }, ["2015-07-16", "2015-07-17"])
        XCTAssertEqual(days[1]["readings"] as? Int, 24)
        XCTAssertEqual(days[1]["illness"] as? Bool, true)
        XCTAssertEqual(days[1]["average_mgdl"] as? Double, 169.8, "the average to one decimal")
    }

    func testNightscout() throws {
        let cli = try filledStore()
        let entries = try XCTUnwrap(try jsonObject(try export("glucose", "nightscout", cli)) as? [[String: Any]])
        XCTAssertEqual(entries.count, 24)
        let first = try XCTUnwrap(entries.first { $0["type"] as? String == "sgv" })
        XCTAssertEqual(
            first as NSDictionary,
            [
                "type": "sgv", "sgv": 79, "date": 1_437_178_697_000, "dateString": "2015-07-18T00:18:17.000Z",
                "direction": "Flat", "device": "glucobridge dexcom:SM44792675",
            ])
        let meter = try XCTUnwrap(entries.first { $0["type"] as? String == "mbg" })
        XCTAssertEqual(meter["mbg"] as? Int, 70)
        XCTAssertNil(meter["direction"])
        let insulin = try XCTUnwrap(try jsonObject(try export("insulin", "nightscout", cli)) as? [[String: Any]])
        XCTAssertEqual(
            insulin.first as NSDictionary?,
            [
                "eventType": "Correction Bolus", "insulin": 4.5, "created_at": "2015-07-17T16:25:00.000Z", "enteredBy": "glucobridge",
            ])
        let meals = try XCTUnwrap(try jsonObject(try export("meal", "nightscout", cli)) as? [[String: Any]])
        XCTAssertEqual(meals.first?["eventType"] as? String, "Carb Correction")
        XCTAssertEqual(meals.first?["carbs"] as? Int, 45)
        let exercise = try XCTUnwrap(try jsonObject(try export("exercise", "nightscout", cli)) as? [[String: Any]])
        XCTAssertEqual(exercise.first?["eventType"] as? String, "Exercise")
        XCTAssertEqual(exercise.first?["duration"] as? Int, 45)
        let refused = try runProcess(
            BuiltProducts.executable("glucobridge"), ["export", "--kind", "days", "--format", "nightscout", "--store", cli.path])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("--format nightscout exports glucose"), refused.stderr)
    }
}
