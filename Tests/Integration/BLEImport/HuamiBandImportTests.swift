import Drivers
import Foundation
import GRDB
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import Transport
import XCTest

/// A Huami band's per-minute history through the whole import: the simulated band (three days in
/// Berlin through the night clocks go forward), authentication, fetches, the store's minutes and
/// cursor; a lost link; a wrong key.
final class HuamiBandImportTests: XCTestCase {
    /// A key made for this run, never a real band's.
    static let key = (0..<16).map { _ in UInt8.random(in: 0...255) }

    private func band(days: Int = 3, address: String = "C8:0F:10:00:00:05", name: String = "Mi Smart Band 5", key: [UInt8] = key)
        -> HuamiBandSimulator
    {
        let band = HuamiBandDemo.band(days: days, key: key)
        band.peer = BLEPeer(address: BluetoothAddress(address)!, addressType: .public, name: name)
        band.form = HuamiSampleForm.forBand(named: name)
        return band
    }

    private func importBand(_ band: HuamiBandSimulator, days: Int, into store: SharedStore, recordTo: URL? = nil) throws
        -> (outcome: DeviceImport, peripheral: SimulatedPeripheral)
    {
        let clock = SimulatedClock(HuamiBandDemo.connected(days: days))
        let peripheral = band.peripheral(clock: clock)
        let context = ImportContext(recordTo: recordTo, recordingClock: { clock.now }, limits: .replay)
        let outcome = try Importer(store: store).run(.bluetooth(ConnectedPeer(peripheral, origin: "simulated band")), context: context)
        return (outcome.devices[0], peripheral)
    }

    private func store() throws -> SharedStore {
        let store = try freshStore(zone: "Europe/Berlin")
        try store.setUserProfile(UserProfile(age: 40))
        return store
    }

    /// The fetch start commands the band received (ATT Write Requests, opcode 0x12, whose value
    /// starts 01 01).
    private func startCommands(_ peripheral: SimulatedPeripheral) -> [[UInt8]] {
        peripheral.received.filter { $0.first == 0x12 && $0.count == 13 && $0[3] == 0x01 }.map { Array($0.dropFirst(3)) }
    }

    private func minuteRow(_ store: SharedStore, _ iso: String) throws -> String? {
        try storeContent(store, [.activityMinutes]).first { $0.contains(iso) }
    }

    /// The band's own kind and intensity bytes the store holds for a minute (`YYYY-MM-DD HH:MM` UTC).
    private func deviceValues(_ store: SharedStore, _ minute: String) throws -> [Int?] {
        try store.database.read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT device_activity_kind, device_intensity FROM activity_minute WHERE minute = ?", arguments: [minute + ":00.000"])
            return [row?[0], row?[1]]
        }
    }

    func testThreeDaysThroughTheClockChangeBecomeEveryMinute() throws {
        HuamiAuthKeys.supply(Self.key, for: BluetoothAddress("C8:0F:10:00:00:05")!)
        let store = try store()
        let (outcome, peripheral) = try importBand(band(), days: 3, into: store)
        XCTAssertEqual(outcome.problems, [])
        // 29 March 00:00 CET to 1 April 00:00 CEST: 24 + 24 + 23 hours, one row a minute.
        XCTAssertEqual(outcome.activity?.summary.minutesAdded, 4260)
        XCTAssertEqual(outcome.activity?.source.family, "ble")
        XCTAssertEqual(outcome.activity?.services, ["huami"])
        XCTAssertEqual(outcome.activity?.source.serial, "SIM-HUAMI-0005")
        // The first fetch asks from 2000-01-01 00:00 UTC; then after each fetch's last minute
        // (1440 minutes a fetch): 30 March 23:00Z, 31 March 23:00Z... in UTC, zone byte 0.
        XCTAssertEqual(
            startCommands(peripheral),
            [
                hexBytes("01 01 D0 07 01 01 00 00 00 00"), hexBytes("01 01 E8 07 03 1D 17 00 00 00"),
                hexBytes("01 01 E8 07 03 1E 17 00 00 00"), hexBytes("01 01 E8 07 03 1F 16 00 00 00"),
                // Then the workouts (sports summaries, type 05) from 2000: the band has none.
                hexBytes("01 05 D0 07 01 01 00 00 00 00"),
            ])
        // 01:59 CET and 03:00 CEST are consecutive minutes: 00:59Z and 01:00Z, asleep.
        XCTAssertEqual(
            try minuteRow(store, "2024-03-31 00:59:00"),
            "\"ble\" | \"SIM-HUAMI-0005\" | \"2024-03-31 00:59:00.000\" | 55.0 | 0.0 | NULL | NULL | NULL | NULL | NULL | \"[\\\"heart-rate-band\\\"]\" | 1"
        )
        XCTAssertEqual(
            try minuteRow(store, "2024-03-31 01:00:00"),
            "\"ble\" | \"SIM-HUAMI-0005\" | \"2024-03-31 01:00:00.000\" | 56.0 | 0.0 | NULL | NULL | NULL | NULL | NULL | \"[\\\"heart-rate-band\\\"]\" | 1"
        )
        // The walk at 07:30 CEST on the day of the change is 05:30Z: minute 3270 of the history,
        // 107 steps, 114 bpm; at noon the band was off the wrist (no heart rate).
        XCTAssertEqual(
            try minuteRow(store, "2024-03-31 05:30:00"),
            "\"ble\" | \"SIM-HUAMI-0005\" | \"2024-03-31 05:30:00.000\" | 114.0 | 107.0 | NULL | NULL | NULL | NULL | NULL | \"[\\\"heart-rate-band\\\"]\" | 1"
        )
        // The band's kind and intensity bytes as sent: 0x01 and 60 + 1 on that walk, 0x70 and
        // minute 2999 mod 7 = 3 asleep at 00:59Z.
        XCTAssertEqual(try deviceValues(store, "2024-03-31 05:30"), [0x01, 61])
        XCTAssertEqual(try deviceValues(store, "2024-03-31 00:59"), [0x70, 3])
        XCTAssertEqual(
            try minuteRow(store, "2024-03-31 10:05:00"),
            "\"ble\" | \"SIM-HUAMI-0005\" | \"2024-03-31 10:05:00.000\" | NULL | 0.0 | NULL | NULL | NULL | NULL | NULL | \"[\\\"heart-rate-band\\\"]\" | 1"
        )
        // Each morning's walk is an exercise log.
        XCTAssertEqual(
            try storeContent(store, [.exercise]).map { $0.components(separatedBy: " | ").prefix(3).joined(separator: " ") },
            [
                "\"2024-03-29\" \"2024-03-29 06:30:00.000\" \"Walking\"", "\"2024-03-30\" \"2024-03-30 06:30:00.000\" \"Walking\"",
                "\"2024-03-31\" \"2024-03-31 05:30:00.000\" \"Walking\"",
            ])
        // The cursor: the UTC minute number of 2024-03-31T21:59Z.
        XCTAssertEqual(try storeContent(store, [.cursors]), ["\"ble\" | \"activity\" | 28532039"])
    }

    func testNextImportStartsAfterTheLastMinuteStored() throws {
        HuamiAuthKeys.supply(Self.key, for: BluetoothAddress("C8:0F:10:00:00:05")!)
        let store = try store()
        _ = try importBand(band(days: 3), days: 3, into: store)
        let (second, peripheral) = try importBand(band(days: 4), days: 4, into: store)
        // Asked from 2024-03-31T22:00Z, the minute after the cursor; the fourth day only.
        XCTAssertEqual(startCommands(peripheral).first, hexBytes("01 01 E8 07 03 1F 16 00 00 00"))
        XCTAssertEqual(second.activity?.summary.minutesAdded, 1440)
        XCTAssertEqual(second.activity?.summary.minutesAlreadyStored, 0)
        XCTAssertEqual(try storeContent(store, [.cursors]), ["\"ble\" | \"activity\" | 28533479"])
        let whole = try self.store()
        _ = try importBand(band(days: 4), days: 4, into: whole)
        XCTAssertEqual(
            try storeContent(store, [.activityMinutes, .exercise, .cursors]), try storeContent(whole, [.activityMinutes, .exercise, .cursors]))
        // Nothing newer: one start command for the minutes and one for the workouts, each
        // answered with no data.
        let (third, again) = try importBand(band(days: 4), days: 4, into: store)
        XCTAssertEqual(startCommands(again), [hexBytes("01 01 E8 07 04 01 16 00 00 00"), hexBytes("01 05 D0 07 01 01 00 00 00 00")])
        XCTAssertNil(third.activity)
    }

    func testLostLinkKeepsWholeMinutesAndTheNextFetchCompletes() throws {
        HuamiAuthKeys.supply(Self.key, for: BluetoothAddress("C8:0F:10:00:00:05")!)
        let store = try store()
        let cut = band()
        // 500 packets of 19 bytes: 1187 whole 8-byte samples and 4 bytes of the next.
        cut.linkLossAfterPackets = 500
        let (first, _) = try importBand(cut, days: 3, into: store)
        XCTAssertEqual(first.activity?.summary.minutesAdded, 1187)
        XCTAssertEqual(first.session?.ending, "the device ended the connection")
        XCTAssertTrue(
            first.activity?.notes.contains { $0.contains("9500 of 11520 bytes; cut: the link was lost") } ?? false, "\(first.activity?.notes ?? [])")
        XCTAssertNil(try minuteRow(store, "2024-03-29 18:47:00"))
        XCTAssertNotNil(try minuteRow(store, "2024-03-29 18:46:00"))
        let (second, peripheral) = try importBand(band(), days: 3, into: store)
        // 2024-03-29T18:47Z, the minute after the last whole one.
        XCTAssertEqual(startCommands(peripheral).first, hexBytes("01 01 E8 07 03 1D 12 2F 00 00"))
        XCTAssertEqual(second.activity?.summary.minutesAdded, 4260 - 1187)
        XCTAssertEqual(second.activity?.summary.minutesAlreadyStored, 0)
        let whole = try self.store()
        _ = try importBand(band(), days: 3, into: whole)
        XCTAssertEqual(try storeContent(store, [.activityMinutes, .cursors]), try storeContent(whole, [.activityMinutes, .cursors]))
    }

    /// A recording replays by conversation with the key; without it, the band's session cannot
    /// be held again, and the recording is read passively to the same minutes.
    func testRecordingReplaysWithAndWithoutTheKey() throws {
        let address = BluetoothAddress("C8:0F:10:00:00:96")!
        HuamiAuthKeys.supply(Self.key, for: address)
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("band.btsnoop")
        let live = try store()
        _ = try importBand(band(days: 1, address: "C8:0F:10:00:00:96"), days: 1, into: live, recordTo: url)
        let withKey = try store()
        XCTAssertEqual(try Importer(store: withKey).run(.capture(url)).devices.map(\.replayMode), [.conversation])
        HuamiAuthKeys.supply(nil, for: address)
        let withoutKey = try store()
        let passive = try Importer(store: withoutKey).run(.capture(url)).devices
        XCTAssertEqual(
            passive.map(\.replayMode),
            [
                .passive(
                    reason: "no auth key is known for the Huami band Mi Smart Band 5 (C8:0F:10:00:00:96), so its session cannot be held again")
            ])
        XCTAssertEqual(try storeContent(withKey, [.activityMinutes, .exercise]).count, 1440 + 1)
        XCTAssertEqual(try storeContent(withKey, [.activityMinutes, .exercise]), try storeContent(live, [.activityMinutes, .exercise]))
        XCTAssertEqual(try storeContent(withoutKey, [.activityMinutes, .exercise]), try storeContent(live, [.activityMinutes, .exercise]))
    }

    /// The band's three morning walks, logged as workouts in three summary layouts (518, 516,
    /// 259), become three Exercise logs dated by the fetch answers (07:30 CET, then CEST after
    /// the change) with the band's length, distance and calories; they replace the sessions the
    /// minutes would make; the next import asks from the minute after the last and adds nothing;
    /// the recording replays to the same logs with the key and without it (read passively).
    func testWorkoutsBecomeExerciseLogsOnce() throws {
        let address = BluetoothAddress("C8:0F:10:00:00:95")!
        HuamiAuthKeys.supply(Self.key, for: address)
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("band.btsnoop")
        let store = try store()
        let walker = band(address: "C8:0F:10:00:00:95")
        walker.workouts = HuamiBandDemo.workouts(days: 3)
        walker.details = HuamiBandDemo.workoutDetails(days: 3)
        let (outcome, first) = try importBand(walker, days: 3, into: store, recordTo: url)
        // Each summary from the minute after the workout before (UTC), then its detail from the
        // workout's start as the band gave it (07:30 at UTC+01:00, +01:00, then +02:00).
        XCTAssertEqual(
            startCommands(first).suffix(7).map { Hex.encode($0) },
            [
                "01 05 D0 07 01 01 00 00 00 00", "01 06 E8 07 03 1D 07 1E 00 04", "01 05 E8 07 03 1D 06 1F 00 00",
                "01 06 E8 07 03 1E 07 1E 00 04", "01 05 E8 07 03 1E 06 1F 00 00", "01 06 E8 07 03 1F 07 1E 00 08",
                "01 05 E8 07 03 1F 05 1F 00 00",
            ])
        XCTAssertEqual(outcome.problems, [])
        let sessions = try XCTUnwrap(outcome.activity?.sessions)
        XCTAssertEqual(sessions.map(\.recordKey), ["workout:2024-03-29T06:30Z", "workout:2024-03-30T06:30Z", "workout:2024-03-31T05:30Z"])
        XCTAssertEqual(sessions.map(\.kind), [.walking, .walking, .walking])
        XCTAssertEqual(sessions.map(\.duration), [2400, 2400, 2400])
        XCTAssertEqual(sessions.map(\.distance), [4150, 4175.5, 4201])
        XCTAssertEqual(sessions.map(\.energy), [212 * 4.184, 213.5 * 4.184, 215 * 4.184])
        // 40 walking minutes at 112–126 bpm for a 40-year-old (maximum 180): moderate.
        XCTAssertEqual(sessions.map(\.intensity), [.moderate, .moderate, .moderate])
        XCTAssertEqual(outcome.activity?.summary.sessionsAdded, 3)
        XCTAssertEqual(
            try storeContent(store, [.cursors]), ["\"ble\" | \"activity\" | 28532039", "\"ble\" | \"workouts\" | 28531050"])

        let again = band(address: "C8:0F:10:00:00:95")
        again.workouts = HuamiBandDemo.workouts(days: 3)
        let (second, peripheral) = try importBand(again, days: 3, into: store)
        // The workouts from 2024-03-31T05:31Z, the minute after the last stored.
        XCTAssertEqual(startCommands(peripheral).last, hexBytes("01 05 E8 07 03 1F 05 1F 00 00"))
        XCTAssertEqual(second.activity?.summary.sessionsAdded ?? 0, 0)

        let withKey = try self.store()
        XCTAssertEqual(try Importer(store: withKey).run(.capture(url)).devices.map(\.replayMode), [.conversation])
        HuamiAuthKeys.supply(nil, for: address)
        let withoutKey = try self.store()
        XCTAssertEqual(try Importer(store: withoutKey).run(.capture(url)).devices.count, 1)
        let live = try storeContent(store, [.exercise])
        XCTAssertEqual(live.count, 3)
        let stored = try store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT distance_m, energy_kj FROM exercise ORDER BY time").map { row -> [Double] in [row[0], row[1]] }
        }
        XCTAssertEqual(stored.map { $0[0] }, [4150, 4175.5, 4201], "metres as the band sent them")
        XCTAssertEqual(stored.map { $0[1] }, [212 * 4.184, 213.5 * 4.184, 215 * 4.184], "kcal as kJ")
        XCTAssertEqual(try storeContent(withKey, [.exercise]), live)
        XCTAssertEqual(try storeContent(withoutKey, [.exercise]), live)
    }

    /// A summary cut by a lost link is left out whole; the next session stores it.
    func testWorkoutCutByALostLinkIsLeftOutWhole() throws {
        let address = BluetoothAddress("C8:0F:10:00:00:94")!
        HuamiAuthKeys.supply(Self.key, for: address)
        let store = try store()
        let cut = band(days: 1, address: "C8:0F:10:00:00:94")
        cut.workouts = HuamiBandDemo.workouts(days: 1)
        // One day of 8-byte samples is 607 packets (11,520 bytes); the summary's first packet
        // goes, then the link.
        cut.linkLossAfterPackets = 607 + 1
        let (first, _) = try importBand(cut, days: 1, into: store)
        XCTAssertEqual(first.activity?.summary.minutesAdded, 1440)
        XCTAssertEqual(first.activity?.sessions.map(\.recordKey), ["exercise:2024-03-29T06:30Z"])
        XCTAssertEqual(first.activity?.sessions.filter { $0.recordKey.hasPrefix("workout:") }.count, 0)
        XCTAssertEqual(first.activity?.events.first { $0.name == "workout-cut" }?.count, 1)
        let whole = band(days: 1, address: "C8:0F:10:00:00:94")
        whole.workouts = HuamiBandDemo.workouts(days: 1)
        let (second, _) = try importBand(whole, days: 1, into: store)
        XCTAssertEqual(second.activity?.sessions.map(\.recordKey), ["workout:2024-03-29T06:30Z"])
        XCTAssertEqual(second.activity?.sessions.first?.distance, 4150)
        // Graded over the walk's minutes the first import stored.
        XCTAssertEqual(second.activity?.sessions.first?.intensity, .moderate)
        // The walk the first import detected in the minutes gave way to the band's own log.
        let exercise = try storeContent(store, [.exercise])
        XCTAssertEqual(exercise.count, 1)
        XCTAssertTrue(exercise[0].contains("workout:2024-03-29T06:30Z"), "\(exercise)")
    }

    /// A workout's sports detail grades it: the walk's minutes say moderate, but the band's
    /// detail logged 170 bpm throughout (vigorous for a 40-year-old), so the Exercise log is
    /// vigorous, live and replayed without the key (the detail told apart by its start). A
    /// detail cut by a lost link leaves the workout as its summary gives it.
    func testTheSportsDetailGradesTheWorkoutAndACutOneIsLeftOut() throws {
        let address = BluetoothAddress("C8:0F:10:00:00:93")!
        HuamiAuthKeys.supply(Self.key, for: address)
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("hard.btsnoop")
        let store = try store()
        let runner = band(days: 1, address: "C8:0F:10:00:00:93")
        runner.workouts = HuamiBandDemo.workouts(days: 1)
        runner.details = [
            runner.workouts[0].start: HuamiWorkoutDetail(records: stride(from: 10, through: 2400, by: 10).map { .heartRate(170, at: $0) })
        ]
        let (outcome, _) = try importBand(runner, days: 1, into: store, recordTo: url)
        XCTAssertEqual(outcome.problems, [])
        XCTAssertEqual(outcome.activity?.sessions.map(\.intensity), [.vigorous])
        HuamiAuthKeys.supply(nil, for: address)
        let passive = try self.store()
        let replayed = try Importer(store: passive).run(.capture(url)).devices
        XCTAssertEqual(replayed.count, 1)
        guard case .passive? = replayed.first?.replayMode else { return XCTFail("replayed as \(String(describing: replayed.first?.replayMode))") }
        XCTAssertEqual(replayed.first?.activity?.sessions.map(\.intensity), [.vigorous])
        XCTAssertEqual(try storeContent(passive, [.exercise]), try storeContent(store, [.exercise]))

        HuamiAuthKeys.supply(Self.key, for: address)
        let cutStore = try self.store()
        let cut = band(days: 1, address: "C8:0F:10:00:00:93")
        cut.workouts = runner.workouts
        cut.details = runner.details
        // 607 packets of minutes, the summary's one or two, then the detail's first.
        cut.linkLossAfterPackets = 607 + HuamiPacketStream.packets(of: runner.workouts[0].summary.bytes).count + 1
        let (lost, _) = try importBand(cut, days: 1, into: cutStore)
        XCTAssertEqual(lost.activity?.sessions.map(\.recordKey), ["workout:2024-03-29T06:30Z"])
        XCTAssertEqual(lost.activity?.sessions.map(\.intensity), [.moderate], "graded over its minutes")
        XCTAssertEqual(lost.activity?.events.first { $0.name == "workout-detail-cut" }?.count, 1)
    }

    /// A band that refuses sports details (a model without them) is asked once a session, and
    /// its workouts are stored as their summaries give them.
    func testABandRefusingDetailsKeepsItsWorkouts() throws {
        let address = BluetoothAddress("C8:0F:10:00:00:92")!
        HuamiAuthKeys.supply(Self.key, for: address)
        let store = try store()
        let older = band(days: 2, address: "C8:0F:10:00:00:92")
        older.workouts = HuamiBandDemo.workouts(days: 2)
        older.details = HuamiBandDemo.workoutDetails(days: 2)
        older.refusedTypes = [HuamiFetchCommand.sportsDetailType]
        let (outcome, peripheral) = try importBand(older, days: 2, into: store)
        XCTAssertEqual(outcome.problems, [])
        XCTAssertEqual(outcome.activity?.sessions.map(\.recordKey), ["workout:2024-03-29T06:30Z", "workout:2024-03-30T06:30Z"])
        XCTAssertEqual(outcome.activity?.sessions.map(\.intensity), [.moderate, .moderate])
        XCTAssertEqual(startCommands(peripheral).filter { $0[1] == HuamiFetchCommand.sportsDetailType }.count, 1)
        XCTAssertEqual(
            (outcome.notes + (outcome.activity?.notes ?? [])).filter { $0.hasSuffix("it keeps no workout details") },
            ["the band answered the start of a sports detail fetch with status 0x02 (command 0x01): it keeps no workout details"])
    }

    func testWrongKeyIsRefusedNamingTheBand() throws {
        let address = BluetoothAddress("C8:0F:10:00:00:99")!
        HuamiAuthKeys.supply((0..<16).map { UInt8($0) }, for: address)
        let store = try store()
        let other = (0..<16).map { UInt8(255 - $0) }
        XCTAssertThrowsError(try importBand(band(address: "C8:0F:10:00:00:99", name: "Amazfit Bip", key: other), days: 3, into: store)) { error in
            XCTAssertTrue(
                "\(error)".contains("the Huami band Amazfit Bip (C8:0F:10:00:00:99) refused the auth key from the key supplied to this process"),
                "\(error)")
            XCTAssertTrue("\(error)".contains("huami-token"), "\(error)")
        }
        XCTAssertEqual(try tableCounts(store).values.reduce(0, +), 0)
    }

    func testFourByteSamplesWithACRC() throws {
        let address = BluetoothAddress("C8:0F:10:00:00:98")!
        HuamiAuthKeys.supply(Self.key, for: address)
        let store = try store()
        let bip = band(days: 1, address: "C8:0F:10:00:00:98", name: "Amazfit Bip")
        bip.sendsCRC = true
        XCTAssertEqual(bip.form, .short)
        let (outcome, _) = try importBand(bip, days: 1, into: store)
        XCTAssertEqual(outcome.problems, [])
        XCTAssertEqual(outcome.activity?.summary.minutesAdded, 1440)
        // 29 March 07:30 CET, 06:30Z: minute 450, 104 + 3 × (450 mod 7 = 2) steps, 112 + 2 × 2 bpm.
        XCTAssertEqual(
            try minuteRow(store, "2024-03-29 06:30:00"),
            "\"ble\" | \"SIM-HUAMI-0005\" | \"2024-03-29 06:30:00.000\" | 116.0 | 110.0 | NULL | NULL | NULL | NULL | NULL | \"[\\\"heart-rate-band\\\"]\" | 1"
        )
        // The 4-byte form's kind and intensity bytes: 0x01 and 60 + 2.
        XCTAssertEqual(try deviceValues(store, "2024-03-29 06:30"), [0x01, 62])
    }

    func testBadCRCStoresNothingOfThatFetch() throws {
        let address = BluetoothAddress("C8:0F:10:00:00:97")!
        HuamiAuthKeys.supply(Self.key, for: address)
        let store = try store()
        let bad = band(days: 1, address: "C8:0F:10:00:00:97", name: "Amazfit Bip")
        bad.sendsCRC = true
        // The band's bytes change after the CRC was taken: the data no longer matches it.
        bad.corruptsData = true
        let (outcome, _) = try importBand(bad, days: 1, into: store)
        XCTAssertEqual(outcome.problems.map(\.description).first?.hasPrefix("Huami fetch: the band's CRC-32"), true, "\(outcome.problems)")
        XCTAssertNil(outcome.activity)
        XCTAssertEqual(try storeContent(store, [.activityMinutes, .cursors]), [])
    }
}
