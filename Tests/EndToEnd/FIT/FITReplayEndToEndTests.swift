import Foundation
import ImportTestSupport
import TestSupport
import XCTest

/// `glucobridge replay` as a process on FIT files and folders, into a store file read back
/// with SQL.
final class FITReplayEndToEndTests: XCTestCase {
    func testReplayOfAFolderStoresEachFileOnceAndRefusesADamagedOne() throws {
        let program = BuiltProducts.executable("glucobridge")
        let folder = try Fixtures.temporaryDirectory()
        let watch = folder.appendingPathComponent("GARMIN")
        try FileManager.default.createDirectory(at: watch, withIntermediateDirectories: true)
        for name in ["garmin-edge-820-bike.fit", "MonitoringFile.fit"] {
            try FileManager.default.copyItem(at: Fixtures.url("fit/\(name)"), to: watch.appendingPathComponent(name))
        }
        let store = folder.appendingPathComponent("store.sqlite").path

        let first = try runProcess(program, ["replay", watch.path, "--store", store, "--tz", "America/Los_Angeles"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(
            first.stdout.hasPrefix("device 1 of 2:\nread \(watch.path)/MonitoringFile.fit (FIT monitoring_b file, 355 messages)"), first.stdout)
        XCTAssertTrue(first.stdout.contains("activity: 471 samples; 391 minutes: 391 new, 0 already stored"), first.stdout)
        XCTAssertTrue(
            first.stdout.contains("exercise: 2017-06-12 09:10 (America/Los_Angeles) Cycling 2 min vigorous, 457.12 m, 33.47 kJ (64.52 s)"),
            first.stdout)
        XCTAssertEqual(try count("exercise", in: store), 1)
        XCTAssertEqual(try count("activity_minute", in: store), 393)

        let again = try runProcess(program, ["replay", watch.path, "--store", store])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("391 minutes: 0 new, 391 already stored"), again.stdout)
        XCTAssertTrue(again.stdout.contains("exercise sessions: 0 new, 1 already stored"), again.stdout)

        try FileManager.default.copyItem(at: Fixtures.url("fit/activity-filecrc.fit"), to: watch.appendingPathComponent("damaged.fit"))
        let refused = try runProcess(program, ["replay", watch.path, "--store", store])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(
            refused.stderr.contains("damaged.fit: the file CRC at byte 769 is 0xB1D5, but the header and records give 0xA1D5"), refused.stderr)
        XCTAssertEqual(try count("exercise", in: store), 1)
        XCTAssertEqual(try count("activity_minute", in: store), 393)

        // The ride's Day as the app's log shows it: its distance and energy stored with it.
        let day = try runProcess(program, ["day", "2017-06-12", "--store", store, "--tz", "America/Los_Angeles"])
        XCTAssertEqual(day.status, 0, day.stderr)
        XCTAssertTrue(day.stdout.contains("exercise   1  Cycling, 1 min, vigorous, 457 m, 33 kJ"), day.stdout)
        let json = try runProcess(program, ["day", "2017-06-12", "--store", store, "--tz", "America/Los_Angeles", "--json"])
        XCTAssertTrue(json.stdout.contains("\"distance_m\" : 457.12"), json.stdout)
        XCTAssertTrue(json.stdout.contains("\"energy_kj\" : 33.472"), json.stdout)
    }
}
