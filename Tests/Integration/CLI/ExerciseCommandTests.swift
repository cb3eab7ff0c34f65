import AppTestSupport
import ArgumentParser
import Foundation
import ImportTestSupport
import Ingest
import Model
import Store
import TestSupport
import XCTest

@testable import glucobridge

/// `glucobridge profile` and `glucobridge export --kind exercise`, on a store file filled from
/// generated sensor streams through exercise detection.
final class ExerciseCommandTests: XCTestCase {
    let pod = DeviceSource(family: "ble-rsc", serial: "C0:FF:EE:00:00:01")

    func storeOptions() throws -> StoreOptions {
        let folder = try Fixtures.temporaryDirectory()
        return try StoreOptions.parse(["--store", folder.appendingPathComponent("s.sqlite").path, "--tz", "America/Los_Angeles"])
    }

    func profile(_ arguments: [String], _ options: StoreOptions) throws {
        var command = try ProfileCommand.parse(arguments)
        command.storeOptions = options
        try command.run()
    }

    /// A 30-minute walk with a 1-minute stop from 22:30 local on 2024-05-01 (05:30 UTC on the
    /// 2nd), a 25-minute run at 150 bpm from 09:00 local on the 2nd, and an 8-minute jog at 13:00.
    func samples() -> [ActivitySample] {
        let walk = Date(timeIntervalSince1970: 1_714_627_800)  // 2024-05-02T05:30:00Z
        let run = Date(timeIntervalSince1970: 1_714_665_600)  // 2024-05-02T16:00:00Z
        let jog = Date(timeIntervalSince1970: 1_714_680_000)  // 2024-05-02T20:00:00Z
        return ActivityStreams.pod(from: walk, minutes: Array(0..<30).filter { $0 != 11 }, cadence: 115, speed: 1.6, gait: .walking)
            + ActivityStreams.pod(from: run, minutes: Array(0..<25), cadence: 165, speed: 3.4, gait: .running)
            + ActivityStreams.band(from: run, minutes: Array(0..<25), bpm: 150)
            + ActivityStreams.pod(from: jog, minutes: Array(0..<8), cadence: 160, speed: 3.2, gait: .running)
    }

    /// What the BLE import will do: detect with the stored profile, then record.
    func importSamples(into store: SharedStore) throws -> ActivityImportSummary {
        let now = Date(timeIntervalSince1970: 1_714_690_000)
        let batch = ExerciseDetector(profile: try store.userProfile()).batch(
            from: samples(), source: pod, startedAt: now, mode: .replayPassive, origin: "generated",
            clock: ClockReport(hostTime: now, deviceTime: nil, method: .hostAnchored))
        return try store.save(batch)
    }

    func testProfileIsSetShownAndUnset() throws {
        let options = try storeOptions()
        try profile([], options)
        XCTAssertEqual(try options.open().userProfile(), UserProfile())

        try profile(["--age", "40"], options)
        try profile(["--resting-hr", "60"], options)
        XCTAssertEqual(try options.open().userProfile(), try UserProfile(age: 40, restingHeartRate: 60), "options not given are kept")
        XCTAssertEqual(
            ProfileCommand.describe(try options.open().userProfile()),
            """
            age                 40 years
            maximum heart rate  180 bpm (208 − 0.7 × age)
            resting heart rate  60 bpm
            intensity from      heart rate as % of heart-rate reserve (Karvonen), else cadence

            """)

        try profile(["--max-hr", "191", "--unset", "resting-hr"], options)
        let stored = try options.open().userProfile()
        XCTAssertEqual(stored, try UserProfile(age: 40, maxHeartRate: 191))
        XCTAssertEqual(
            ProfileCommand.describe(stored).split(separator: "\n").map(String.init)[1...3],
            [
                "maximum heart rate  191 bpm (set)", "resting heart rate  -", "intensity from      heart rate as % of maximum, else cadence",
            ])

        try profile(["--unset", "age", "--unset", "max-hr"], options)
        XCTAssertEqual(try options.open().userProfile(), UserProfile())
        XCTAssertTrue(ProfileCommand.describe(UserProfile()).contains("cadence and bike speed only"))
        XCTAssertTrue(ProfileCommand.describe(try UserProfile(age: 35)).contains("183.5 bpm (208 − 0.7 × age)"))
    }

    func testImpossibleProfilesAreRefusedAndNothingChanges() throws {
        let options = try storeOptions()
        try profile(["--age", "90"], options)
        // Tanaka for 90 is 145 bpm: a resting rate of 150 is not below it.
        XCTAssertThrowsError(try profile(["--resting-hr", "150"], options)) { error in
            XCTAssertEqual((error as? ExitCode)?.rawValue, 1)
        }
        XCTAssertThrowsError(try profile(["--age", "0"], options))
        XCTAssertEqual(try options.open().userProfile(), try UserProfile(age: 90))

        let contradiction = try ProfileCommand.parse(["--age", "50", "--unset", "age"])
        XCTAssertThrowsError(try contradiction.updated(UserProfile())) { error in
            XCTAssertEqual("\(error)", "--age and --unset age contradict each other")
        }
        XCTAssertThrowsError(try ProfileCommand.parse(["--unset", "weight"]))
        let tooHigh = try ProfileCommand.parse(["--resting-hr", "150"])
        XCTAssertThrowsError(try tooHigh.updated(UserProfile(age: 90))) { error in
            XCTAssertEqual("\(error)", "the resting heart rate 150 bpm must be below the maximum heart rate (145 bpm); check both values")
        }
    }

    func testExerciseExportColumnsAndValues() throws {
        let options = try storeOptions()
        try profile(["--age", "40", "--resting-hr", "60"], options)
        let store = try options.open()
        _ = try store.add(
            ExerciseLog(
                time: Date(timeIntervalSince1970: 1_714_582_800), name: "Yoga, gentle", duration: 2730, intensity: .light))  // 2024-05-01T17:00:00Z

        let first = try importSamples(into: store)
        XCTAssertEqual(first.sessionsAdded, 2, "the 8-minute jog is not a session")
        XCTAssertEqual(first.minutesAdded, 29 + 25 + 8, "its minutes are kept all the same")
        let again = try importSamples(into: store)
        XCTAssertEqual(again.sessionsAdded, 0)
        XCTAssertEqual(again.sessionsAlreadyStored, 2)
        XCTAssertEqual(again.minutesAdded, 0)

        XCTAssertEqual(
            try exported(["--kind", "exercise", "--format", "csv"], store),
            """
            start,day,name,duration_min,intensity,source,record_key,distance_m,energy_kj
            2024-05-01T17:00:00Z,2024-05-01,"Yoga, gentle",45.5,light,,,,
            2024-05-02T05:30:00Z,2024-05-01,Walking,30,moderate,ble-rsc:C0:FF:EE:00:00:01,exercise:2024-05-02T05:30Z,,
            2024-05-02T16:00:00Z,2024-05-02,Running,25,vigorous,ble-rsc:C0:FF:EE:00:00:01,exercise:2024-05-02T16:00Z,,

            """)

        let objects = try XCTUnwrap(jsonObject(try exported(["--kind", "exercise", "--format", "json"], store)) as? [[String: Any]])
        XCTAssertEqual(objects.count, 3)
        XCTAssertEqual(
            objects[1] as NSDictionary,
            [
                "start": "2024-05-02T05:30:00Z", "day": "2024-05-01", "name": "Walking", "duration_min": 30,
                "intensity": "moderate", "source": "ble-rsc:C0:FF:EE:00:00:01", "record_key": "exercise:2024-05-02T05:30Z",
            ])
        XCTAssertEqual(objects[0]["duration_min"] as? Double, 45.5, "a number, not a string")
        XCTAssertNil(objects[0]["source"], "an app-entered session has no source")
    }

    func testExportKindDefaultsToGlucose() throws {
        XCTAssertEqual(try ExportCommand.parse([]).kind, .glucose)
        XCTAssertEqual(try ExportCommand.parse(["--kind", "exercise", "--format", "json"]).kind, .exercise)
        XCTAssertThrowsError(try ExportCommand.parse(["--kind", "sleep"]))
    }
}
