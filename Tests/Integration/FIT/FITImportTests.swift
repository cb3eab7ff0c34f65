import Checksums
import Drivers
import Foundation
import GRDB
import ImportTestSupport
import Importer
import Model
import Store
import TestSupport
import XCTest

/// FIT files replayed through the one import pipeline into real SQLite stores: the Exercise logs
/// and activity minutes they leave, imports again and from other paths, damaged files, folders.
final class FITImportTests: XCTestCase {
    func replay(_ url: URL, into store: SharedStore) throws -> [DeviceImport] {
        try Importer(store: store).run(.capture(url)).devices
    }

    func rows(_ store: SharedStore, _ sql: String) throws -> [[String]] {
        try store.database.read { db in
            try Row.fetchAll(db, sql: sql).map { row in
                row.databaseValues.map { value in
                    if case .string(let text) = value.storage { return text }
                    return "\(value)"
                }
            }
        }
    }

    /// An Edge 820 ride of 64.5 s: one Cycling log at its start, its measured duration, graded
    /// vigorous by its speed (7.08 m/s average, over 10 mph); its two minutes with crank cadence.
    func testEdge820RideIsACyclingLogAndItsMinutes() throws {
        let (store, _) = try makeStore(zone: "America/Los_Angeles")
        let devices = try replay(Fixtures.url("fit/garmin-edge-820-bike.fit"), into: store)
        XCTAssertEqual(devices.count, 1)
        XCTAssertEqual(devices[0].fit?.fileType, "activity")
        XCTAssertEqual(devices[0].fit?.zoneOffset, -25_200)
        XCTAssertEqual(
            try rows(
                store,
                "SELECT e.time, e.name, e.duration_seconds, e.intensity, e.device_record_key, s.family, s.serial, s.model, e.distance_m, e.energy_kj FROM exercise e JOIN source s ON s.id = e.source_id"
            ),
            [
                [
                    "2017-06-12 16:10:15.000", "Cycling", "64.524", "vigorous", "session:0", "fit", "3932942223/activity/2017-06-12T16:10:15Z",
                    "garmin product 2530", "457.12", "33.472",
                ]
            ])
        let session = try XCTUnwrap(devices[0].activity?.sessions.first)
        XCTAssertEqual(try XCTUnwrap(session.distance), 457.12, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(session.energy), 8 * 4.184, accuracy: 1e-9)
        let minutes = try rows(store, "SELECT minute, crank_cadence_rpm IS NOT NULL, step_cadence_spm, sensors FROM activity_minute ORDER BY minute")
        XCTAssertEqual(
            minutes, [["2017-06-12 16:10:00.000", "1", "NULL", "[\"cycling\"]"], ["2017-06-12 16:11:00.000", "1", "NULL", "[\"cycling\"]"]])
        let report = ImportReport(ImportResult(devices: devices), store: store).text
        XCTAssertTrue(
            report.contains("exercise: 2017-06-12 09:10 (America/Los_Angeles) Cycling 2 min vigorous, 457.12 m, 33.47 kJ (64.52 s)"), report)
        XCTAssertTrue(report.contains("note: the watch's clock was UTC−07:00 at 2017-06-12T16:11:22Z (local_timestamp)"), report)
    }

    /// A fēnix 2 run: one Running log of 2832 s, graded by heart rate and cadence with a profile;
    /// 48 minutes whose distances add up to the last record's 9007.07 m, at 2 × the strides/min.
    func testFenix2RunIsOneRunningLogAndItsMinutes() throws {
        guard let url = Fixtures.sharedVector("fit/activity-small-fenix2-run.fit") else {
            throw XCTSkip("../shared/vectors/fit/activity-small-fenix2-run.fit is not present")
        }
        let (store, _) = try makeStore(zone: "Europe/Oslo")
        try store.setUserProfile(UserProfile(age: 35))
        let devices = try replay(url, into: store)
        XCTAssertEqual(
            try rows(store, "SELECT time, name, duration_seconds, intensity FROM exercise"),
            [["2015-08-15 14:45:08.000", "Running", "2832.0", "vigorous"]])
        let summary = try rows(
            store, "SELECT COUNT(*), ROUND(SUM(distance_m), 2), MIN(minute), MAX(minute), GROUP_CONCAT(DISTINCT gait) FROM activity_minute")
        XCTAssertEqual(summary, [["48", "9007.07", "2015-08-15 14:45:00.000", "2015-08-15 15:32:00.000", "running"]])
        // The first minute: the mean of 2 × (cadence + fractional_cadence) over its 51 records, as
        // garmin-fit-sdk decodes them (161.2156862745098 there).
        let cadence = try XCTUnwrap(
            try rows(store, "SELECT step_cadence_spm FROM activity_minute ORDER BY minute LIMIT 1").first?.first.flatMap(Double.init))
        XCTAssertEqual(cadence, 161.2156862745098, accuracy: 1e-9)
        XCTAssertEqual(devices[0].activity?.sessions.first?.activeMinutes, 48)
    }

    /// A vívofit day: the steps of each interval (the cumulative `steps`, differenced) spread
    /// over its minutes add up to the watch's own daily summary, 3142 walking and 31 running.
    func testMonitoringStepsAddUpToTheWatchsDailyTotal() throws {
        let (store, _) = try makeStore(zone: "America/Chicago")
        let devices = try replay(Fixtures.url("fit/MonitoringFile.fit"), into: store)
        XCTAssertEqual(devices[0].fit?.fileType, "monitoring_b")
        XCTAssertEqual(devices[0].fit?.zoneOffset, -21_600)
        XCTAssertEqual(try rows(store, "SELECT ROUND(SUM(step_cadence_spm), 6), COUNT(*) FROM activity_minute"), [["3173.0", "391"]])
        XCTAssertEqual(try rows(store, "SELECT COUNT(*) FROM exercise"), [["0"]])
        // The first walking interval: 100 steps from 14:11:00 to 14:15:00 UTC (timestamp_16 29172
        // and 29412 after the full timestamp 788594400), 25 a minute.
        XCTAssertEqual(
            try rows(
                store, "SELECT minute, step_cadence_spm, gait FROM activity_minute WHERE step_cadence_spm IS NOT NULL ORDER BY minute LIMIT 4"),
            (11...14).map { ["2014-12-27 14:\($0):00.000", "25.0", "walking"] })
        XCTAssertEqual(
            try rows(store, "SELECT serial, model FROM source"), [["3882708276/monitoring_b/2014-12-27T06:00:00Z", "garmin product 1837"]])
        // The watch's own activity type and intensity, as garmin-fit-sdk decodes them, in the
        // minute of each message's time (of two in a minute, the later): 334 minutes (255 of the
        // 391 hold nothing else: the watch's sedentary intervals); 14:15 ends
        // the walk (type 6, walking; intensity 2), 13:43 and 13:45 are sedentary (type 8).
        XCTAssertEqual(
            try rows(
                store,
                "SELECT minute, device_activity_kind, device_intensity FROM activity_minute WHERE minute IN "
                    + "('2014-12-27 13:43:00.000', '2014-12-27 13:45:00.000', '2014-12-27 14:15:00.000') ORDER BY minute"),
            [
                ["2014-12-27 13:43:00.000", "8", "0"], ["2014-12-27 13:45:00.000", "8", "2"],
                ["2014-12-27 14:15:00.000", "6", "2"],
            ])
        let sdkCounts = [
            (1, 5, 1), (6, 0, 5), (6, 1, 27), (6, 2, 28), (6, 3, 12), (6, 4, 5), (8, 0, 92), (8, 1, 13), (8, 2, 31), (8, 3, 42),
            (8, 4, 33), (8, 5, 27), (8, 6, 12), (8, 7, 6),
        ]
        XCTAssertEqual(
            try rows(
                store,
                "SELECT device_activity_kind, device_intensity, COUNT(*) FROM activity_minute "
                    + "WHERE device_activity_kind IS NOT NULL OR device_intensity IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2"),
            sdkCounts.map { ["\($0.0)", "\($0.1)", "\($0.2)"] })
    }

    /// The same file again, and a copy of it under another name, add nothing.
    func testReplayingAgainOrFromAnotherPathAddsNothing() throws {
        let (store, folder) = try makeStore()
        let original = Fixtures.url("fit/garmin-edge-820-bike.fit")
        _ = try replay(original, into: store)
        let first = try storeContent(store, [.activityMinutes, .exercise])
        let copy = folder.appendingPathComponent("2017-06-12-ride.bin")
        try FileManager.default.copyItem(at: original, to: copy)
        for url in [original, copy] {
            let again = try XCTUnwrap(try replay(url, into: store).first?.activity?.summary)
            XCTAssertEqual(again.minutesAdded, 0)
            XCTAssertEqual(again.minutesAlreadyStored, 2)
            XCTAssertEqual(again.sessionsAdded, 0)
            XCTAssertEqual(again.sessionsAlreadyStored, 1)
        }
        XCTAssertEqual(try storeContent(store, [.activityMinutes, .exercise]), first)
        XCTAssertEqual(try rows(store, "SELECT COUNT(*) FROM source"), [["1"]])
    }

    /// A wrong file CRC and a damaged chained header refuse the import, naming file and offset;
    /// nothing is written.
    func testDamagedFilesAreRefusedNamingTheOffsetAndStoreNothing() throws {
        let (store, _) = try makeStore()
        let before = try tableCounts(store)
        for (name, expected) in [
            ("activity-filecrc.fit", "activity-filecrc.fit: the file CRC at byte 769 is 0xB1D5, but the header and records give 0xA1D5"),
            (
                "activity-settings-corruptheader.fit",
                "activity-settings-corruptheader.fit: the FIT header at byte 771 is damaged: bytes 8–11 are \".GIT\", not \".FIT\""
            ),
        ] {
            XCTAssertThrowsError(try replay(Fixtures.url("fit/\(name)"), into: store)) { error in
                XCTAssertEqual((error as? ImportError)?.description, expected)
            }
        }
        XCTAssertEqual(try tableCounts(store), before)
    }

    /// A file cut inside its last message keeps the whole messages before it, and says so.
    func testCutFileKeepsItsWholeMessagesAndSaysWhatWasCut() throws {
        let (store, _) = try makeStore()
        let devices = try replay(Fixtures.url("fit/activity-unexpected-eof.fit"), into: store)
        XCTAssertEqual(devices[0].fit?.messagesRead, 21)
        XCTAssertEqual(devices[0].activity?.summary.samplesRead, 14)
        XCTAssertEqual(
            devices[0].activity?.notes.first,
            "activity-unexpected-eof.fit is cut short at byte 768: a data message of global number 34 at byte 751 needs 18 bytes; the message is left out"
        )
        XCTAssertEqual(try rows(store, "SELECT time, name, duration_seconds FROM exercise"), [["2012-04-09 21:22:26.000", "Running", "13.749"]])
    }

    /// A folder: its FIT files by content (whatever their names), other files ignored, FIT files
    /// of other types named and skipped; a second replay adds nothing.
    func testFolderImportsEveryFITFileByContent() throws {
        let (store, _) = try makeStore()
        let folder = try Fixtures.temporaryDirectory()
        try FileManager.default.copyItem(at: Fixtures.url("fit/Activity.fit"), to: folder.appendingPathComponent("A1.BIN"))
        try FileManager.default.copyItem(at: Fixtures.url("fit/MonitoringFile.fit"), to: folder.appendingPathComponent("M1.FIT"))
        try Data("not a FIT file".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        try Data(Self.settingsFile()).write(to: folder.appendingPathComponent("settings.fit"))
        let devices = try replay(folder, into: store)
        XCTAssertEqual(devices.map { $0.fit?.fileType }, ["activity", "monitoring_b"])
        XCTAssertEqual(devices[0].notes, ["skipped settings.fit is a FIT settings file; glucobridge imports activity and monitoring files"])
        XCTAssertEqual(try rows(store, "SELECT COUNT(*) FROM exercise"), [["1"]])
        XCTAssertEqual(try rows(store, "SELECT COUNT(*) FROM activity_minute"), [["392"]])
        let again = try replay(folder, into: store)
        XCTAssertEqual(again.compactMap { $0.activity?.summary.minutesAdded }, [0, 0])
        XCTAssertEqual(again.compactMap { $0.activity?.summary.sessionsAdded }, [0, 0])

        let empty = try Fixtures.temporaryDirectory()
        XCTAssertThrowsError(try replay(empty, into: store)) { error in
            XCTAssertEqual((error as? ImportError)?.description, "\(empty.path) holds no FIT file (none has \".FIT\" at bytes 8–11)")
        }
    }

    /// A FIT settings file (file_id type 2) of one message, its CRCs from CRC16.arc.
    static func settingsFile() -> [UInt8] {
        let records: [UInt8] = [0x40, 0, 0, 0, 0, 1, 0, 1, 0x00] + [0x00, 2]
        var bytes: [UInt8] = [12, 0x10, 0x64, 0, UInt8(records.count), 0, 0, 0] + Array(".FIT".utf8) + records
        let crc = CRC16.arc.checksum(bytes)
        bytes += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        return bytes
    }
}
