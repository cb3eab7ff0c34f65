import CaptureBluetooth
import Drivers
import Foundation
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import XCTest

/// The 40-minute walk recorded from the simulated heart-rate band (fixtures/ble/hr-40min-walk.btsnoop),
/// end to end: btsnoop → replay → ATT client → Heart Rate driver → exercise detection → store.
final class HeartRateWalkTests: XCTestCase {
    let fixture = Fixtures.url("ble/hr-40min-walk.btsnoop")
    let band = DeviceSource(family: "ble", serial: "SIM-HR-0001", model: "glucobridge simulator HR band")

    /// The committed capture is exactly what the simulator records (set GLUCOBRIDGE_WRITE_FIXTURES=1
    /// to write it anew).
    func testFixtureIsReproducible() throws {
        let fresh = try Fixtures.temporaryDirectory().appendingPathComponent("walk.btsnoop")
        try HeartRateBandDemo.record(to: fresh)
        if ProcessInfo.processInfo.environment["GLUCOBRIDGE_WRITE_FIXTURES"] == "1" {
            try? FileManager.default.removeItem(at: fixture)
            try FileManager.default.copyItem(at: fresh, to: fixture)
        }
        XCTAssertEqual(try Data(contentsOf: fresh), try Data(contentsOf: fixture))
    }

    /// What the capture holds on the wire: one LE connection, 3000 Heart Rate Measurement
    /// notifications a second apart, and the values the band was made to send.
    func testCaptureHoldsTheBandSession() throws {
        let capture = try LECapture.read(contentsOf: fixture)
        XCTAssertEqual(capture.file.datalink, .hciUART)
        let link = try XCTUnwrap(capture.attConnections.first)
        XCTAssertEqual(capture.attConnections.count, 1)
        XCTAssertEqual(link.peerAddress, HeartRateBandDemo.peer.address)
        let notifications = link.att.filter { $0.direction == .received && $0.bytes.first == 0x1B }
        XCTAssertEqual(notifications.count, 3000)
        XCTAssertEqual(notifications.first?.hostTime, HeartRateBandDemo.connected.addingTimeInterval(1))
        XCTAssertEqual(notifications.last?.hostTime, HeartRateBandDemo.connected.addingTimeInterval(3000))
        // Second 300 (06:00:00Z): 122 bpm, contact, energy (299 s × 0.1 kJ resting + 0.35 kJ), RR 60/122 s.
        let walkStart = try HeartRateMeasurement.decode(Array(notifications[299].bytes.dropFirst(3)))
        XCTAssertEqual(walkStart.beatsPerMinute, 122)
        XCTAssertEqual(walkStart.sensorContact, .detected)
        XCTAssertEqual(walkStart.energyExpendedKilojoules, 30)
        XCTAssertEqual(walkStart.rrIntervals, [504])
        XCTAssertEqual(link.disconnectReason, 0x13)
        // Connection, 30 PDUs of setup (MTU, discovery, three Device Information reads, the body
        // sensor location, the CCCD write), 3000 notifications, disconnection.
        XCTAssertEqual(capture.file.packets.count, 1 + 30 + 3000 + 1)
    }

    func testWalkBecomesOneExerciseLogOnTheLocalDay() throws {
        let store = try freshStore(zone: "America/Los_Angeles")
        try store.setUserProfile(UserProfile(age: 40))
        let importer = Importer(store: store)

        let outcome = try importer.replayOneBLE(captureAt: fixture)
        XCTAssertEqual(outcome.replayMode, .conversation)
        XCTAssertEqual(outcome.mode, .replayConversation)
        XCTAssertEqual(outcome.identity?.serial, "SIM-HR-0001")
        XCTAssertEqual(outcome.session?.ending, "the device disconnected (remote user terminated connection, hr-40min-walk.btsnoop record 3032)")
        XCTAssertEqual(outcome.session?.notes, [])
        XCTAssertEqual(outcome.problems, [])
        let activity = try XCTUnwrap(outcome.activity)
        XCTAssertEqual(activity.source, band)
        XCTAssertEqual(activity.summary.samplesRead, 3000)
        // 05:55:01 … 06:45:00: minutes 05:55 to 06:45.
        XCTAssertEqual(activity.summary.minutesAdded, 51)
        XCTAssertEqual(activity.summary.sessionsAdded, 1)
        XCTAssertEqual(activity.summary.days, [DayDate("2024-05-01")!])
        XCTAssertEqual(activity.notes, ["heart rate sensor worn: chest"])
        XCTAssertTrue(outcome.glucose.isEmpty)

        // Exactly one Exercise log, on May 1 (22:55 local when the band connected, 23:00 at the walk).
        let logs = try store.logs(ExerciseLog.self)
        XCTAssertEqual(logs.count, 1)
        let walk = try XCTUnwrap(logs.first)
        XCTAssertEqual(walk.day, DayDate("2024-05-01")!)
        XCTAssertEqual(walk.log.time, HeartRateBandDemo.walkStart)
        XCTAssertEqual(walk.log.name, "Activity", "heart rate alone does not tell walking from other activity")
        XCTAssertEqual(walk.log.duration, 40 * 60)
        XCTAssertEqual(walk.log.intensity, .moderate)
        XCTAssertEqual(walk.source, band)
        XCTAssertEqual(walk.recordKey, "exercise:2024-05-02T06:00Z")
        // The report shows the walk in the store's zone, like every other instant it prints.
        let report = ImportReport(ImportResult(devices: [outcome]), store: store).text.split(separator: "\n")
        XCTAssertTrue(report.contains("exercise: 2024-05-01 23:00 (America/Los_Angeles) Activity 40 min moderate"), "\(report)")

        // The minutes are stored for plots: the walk's first minute is the mean of its 60 rates.
        let minutes = try store.activityMinutes(source: band)
        XCTAssertEqual(minutes.count, 51)
        let first = try XCTUnwrap(minutes.first { $0.minute.start == HeartRateBandDemo.walkStart }?.minute)
        let expected = (300..<360).map { Double(HeartRateBandDemo.beatsPerMinute(at: $0)) }.reduce(0, +) / 60
        XCTAssertEqual(try XCTUnwrap(first.heartRate), expected, accuracy: 1e-9)
        XCTAssertEqual(first.sampleCount, 60)
        XCTAssertEqual(first.sensors, [.heartRateBand])
        XCTAssertEqual(minutes.first?.minute.start, HeartRateBandDemo.connected)
        XCTAssertEqual(minutes.first?.minute.sampleCount, 59, "the first notification came 1 s after connecting")

        // A second replay adds nothing.
        let before = try tableCounts(store)
        let again = try importer.replayOneBLE(captureAt: fixture)
        XCTAssertEqual(again.replayMode, .conversation)
        XCTAssertEqual(again.activity?.summary.minutesAdded, 0)
        XCTAssertEqual(again.activity?.summary.minutesAlreadyStored, 51)
        XCTAssertEqual(again.activity?.summary.sessionsAdded, 0)
        XCTAssertEqual(again.activity?.summary.sessionsAlreadyStored, 1)
        var after = try tableCounts(store)
        XCTAssertEqual(after["import_run"], before["import_run"]! + 1)
        after["import_run"] = before["import_run"]
        XCTAssertEqual(after, before)
        XCTAssertEqual(try store.logs(ExerciseLog.self).count, 1)
    }

    /// Without an age or maximum heart rate the band's minutes are stored, but no session can be
    /// graded from heart rate alone, and the outcome says so.
    func testWithoutAProfileNoSessionIsMade() throws {
        let store = try freshStore(zone: "America/Los_Angeles")
        let outcome = try Importer(store: store).replayOneBLE(captureAt: fixture)
        XCTAssertEqual(outcome.activity?.summary.minutesAdded, 51)
        XCTAssertEqual(outcome.activity?.summary.sessionsAdded, 0)
        XCTAssertTrue(outcome.activity?.notes.contains("heart rate was not used for intensity: the profile has no age or maximum heart rate") == true)
        XCTAssertEqual(try store.logs(ExerciseLog.self).count, 0)
    }

    /// The live path with the simulated band as the device: `--record` writes a btsnoop file that
    /// replays into the same store content, by conversation.
    func testLiveSessionRecordsACaptureThatReplaysTheSame() throws {
        let clock = SimulatedClock(HeartRateBandDemo.connected)
        let recording = try Fixtures.temporaryDirectory().appendingPathComponent("live.log")
        let live = try freshStore(zone: "America/Los_Angeles")
        try live.setUserProfile(UserProfile(age: 40))
        let outcome = try Importer(store: live).importOneBLE(
            over: HeartRateBandDemo.band(clock: clock), origin: "bluetooth C0:FF:EE:00:00:01", recordTo: recording,
            recordingClock: { clock.now })
        XCTAssertEqual(outcome.mode, .live)
        XCTAssertNil(outcome.replayMode)
        XCTAssertEqual(outcome.activity?.summary.sessionsAdded, 1)
        XCTAssertEqual(outcome.session?.ending, "the device ended the connection")

        XCTAssertTrue(Importer.isBTSnoop(recording), "recognised by its magic, not its name")
        let replayed = try freshStore(zone: "America/Los_Angeles")
        try replayed.setUserProfile(UserProfile(age: 40))
        let again = try Importer(store: replayed).replayOneBLE(captureAt: recording)
        XCTAssertEqual(again.replayMode, .conversation)
        func withoutRuns(_ lines: [String]) -> [String] { lines.filter { !$0.contains("live") && !$0.contains("replay-") } }
        XCTAssertEqual(withoutRuns(try storeContent(live)), withoutRuns(try storeContent(replayed)))
        XCTAssertEqual(try storeContent(live).count, 51 + 1 + 1)
    }

    /// A file that is not btsnoop is not taken for one, and a cut capture fails with a line that
    /// names the file; nothing is stored.
    func testNotBTSnoopAndTruncatedCaptures() throws {
        XCTAssertFalse(Importer.isBTSnoop(Fixtures.url("dexcom/ecc1-g4-receiver.pcap")))
        XCTAssertFalse(Importer.isBTSnoop(URL(fileURLWithPath: "/nonexistent/file.btsnoop")))

        let bytes = try Data(contentsOf: fixture)
        let cut = try Fixtures.temporaryDirectory().appendingPathComponent("cut.btsnoop")
        try bytes.prefix(10).write(to: cut)
        let store = try freshStore(zone: "UTC")
        XCTAssertThrowsError(try Importer(store: store).replayOneBLE(captureAt: cut)) { error in
            XCTAssertTrue("\(error)".hasPrefix("cut.btsnoop"), "\(error)")
        }
        XCTAssertEqual(try tableCounts(store).values.reduce(0, +), 0)
    }
}
