import CaptureBluetooth
import Drivers
import Foundation
import ImportTestSupport
import Importer
import Model
import Store
import TestSupport
import Transport
import XCTest

/// The synthetic heart-rate + CGM session (fixtures/ble/synthetic, values in its EXPECTED.md)
/// replayed into a store, from both capture formats.
final class SyntheticCaptureImportTests: XCTestCase {
    static let files = [
        Fixtures.url("ble/synthetic/synthetic-hrs-cgms-android-h4.btsnoop"),
        Fixtures.url("ble/synthetic/synthetic-hrs-cgms-btmon-monitor.btsnoop"),
    ]
    let sensor = DeviceSource(family: "ble-cgms", serial: "C0:11:22:33:44:55", model: "SynBand")
    let stream: RecordStream = "cgm@2024-01-15T06:00:00Z"

    /// EXPECTED.md's CGM records that are readings: session start 06:00:00Z + offset.
    let readings: [(time: String, mgdl: Double, offset: Int)] = [
        ("2024-01-15T06:10:00.000Z", 110, 10), ("2024-01-15T06:15:00.000Z", 112, 15), ("2024-01-15T07:00:00.000Z", 120, 60),
        ("2024-01-15T07:01:00.000Z", 121, 61), ("2024-01-15T07:02:00.000Z", 119, 62), ("2024-01-15T07:03:00.000Z", 118, 63),
    ]

    func testCGMReadingsHeartRateAndRACP() throws {
        for url in Self.files {
            let store = try freshStore(zone: "Europe/Berlin")
            let outcome = try Importer(store: store).replayOneBLE(captureAt: url)
            XCTAssertEqual(outcome.replayMode, .conversation, url.lastPathComponent)
            XCTAssertEqual(outcome.identity?.peer.description, "SynBand (C0:11:22:33:44:55, random)")
            XCTAssertEqual(outcome.session?.reports.map(\.family), ["ble-hrs", "ble-cgms"])
            XCTAssertEqual(outcome.problems, [])
            XCTAssertEqual(outcome.session?.unclaimed, [:])

            // CGM: 7 records in 5 notifications; the NaN one is counted, every CRC was valid.
            let cgm = try XCTUnwrap(outcome.glucose.first)
            XCTAssertEqual(outcome.glucose.count, 1)
            XCTAssertEqual(cgm.source, sensor)
            XCTAssertEqual(cgm.service, .continuousGlucoseMonitoring)
            XCTAssertEqual(cgm.summary.recordsRead, 7)
            XCTAssertEqual(cgm.summary.added, 6)
            XCTAssertEqual(cgm.summary.skipped, 1)
            XCTAssertEqual(cgm.events, [ImportEvent(name: "special-value-nan", count: 1)])
            XCTAssertEqual(cgm.clock.method, .deviceClockAsUTC)
            XCTAssertTrue(
                cgm.notes.contains(
                    "CGM readings placed at the session start 2024-01-15T06:00:00Z (Session Start Time 2024-01-15T07:00:00 at UTC+1:00, "
                        + "DST +0 min) plus each record's time offset"), "\(cgm.notes)")
            XCTAssertTrue(cgm.notes.contains("CGM Feature: values carry an E2E-CRC; sample interstitial fluid, subcutaneous tissue"))

            let stored = try store.glucose()
            XCTAssertEqual(stored.map { iso($0.time) }, readings.map(\.time))
            XCTAssertEqual(stored.map(\.mgdl), readings.map(\.mgdl))
            XCTAssertEqual(stored.map(\.recordKey), readings.map { "\(stream):\($0.offset)" })
            XCTAssertEqual(Set(stored.map(\.kind)), [.sensor])
            XCTAssertEqual(stored.map(\.deviceTime), readings.map { Int64($0.offset * 60) })
            XCTAssertEqual(Set(stored.map(\.day)), [DayDate("2024-01-15")!])
            XCTAssertEqual(try store.cursor(source: sensor, stream: stream), 64, "the download completed without a bad record")

            // RACP: "2 stored records", then report all → success.
            XCTAssertTrue(outcome.notes.contains("Continuous Glucose Monitoring: the device holds 2 stored records for filter 01"))

            // Heart rate: 7 samples at the notification times, one without contact.
            let heart = try XCTUnwrap(outcome.session?.reports.first { $0.family == "ble-hrs" })
            XCTAssertEqual(heart.samples.map { $0.heartRate }, [72, 75, 90, 180, 0, 101, 88])
            XCTAssertEqual(heart.samples.map(\.skinContact), [true, true, true, true, false, true, nil])
            XCTAssertEqual(heart.samples.map(\.totalEnergy), [nil, nil, 16, nil, nil, nil, nil])
            XCTAssertEqual(heart.samples.map { iso($0.time) }, (0..<7).map { "2024-01-15T08:00:0\($0).449Z" })
            XCTAssertEqual(heart.notes, ["heart rate sensor worn: chest"])
            let activity = try XCTUnwrap(outcome.activity)
            XCTAssertEqual(activity.source, DeviceSource(family: "ble", serial: "C0:11:22:33:44:55", model: "SynBand"))
            XCTAssertEqual(activity.services, ["ble-hrs"])
            XCTAssertEqual(activity.summary.samplesRead, 7)
            XCTAssertEqual(activity.events, [ImportEvent(name: "heart-rate-without-contact", count: 1)])
            let minute = try XCTUnwrap(try store.activityMinutes().first?.minute)
            XCTAssertEqual(try store.activityMinutes().count, 1)
            XCTAssertEqual(minute.start, instant("2024-01-15T08:00:00Z"))
            XCTAssertEqual(minute.heartRate, (72 + 75 + 90 + 180 + 101 + 88) / 6.0)
            XCTAssertEqual(minute.sampleCount, 6)
            XCTAssertEqual(activity.summary.sessionsAdded, 0, "a minute is no session")
            XCTAssertEqual(
                outcome.session?.ending,
                "the device disconnected (remote user terminated connection, \(url.lastPathComponent) record \(url.lastPathComponent.contains("btmon") ? 92 : 91))"
            )
        }
    }

    /// The 1002 and the 2001 file hold one session: the stores they make are the same.
    func testBothFormatsMakeTheSameStore() throws {
        let contents = try Self.files.map { url in
            let store = try freshStore(zone: "Europe/Berlin")
            _ = try Importer(store: store).replayOneBLE(captureAt: url)
            return try storeContent(store)
        }
        XCTAssertEqual(contents[0], contents[1])
        XCTAssertEqual(contents[0].count, 6 + 1 + 1 + 2, "readings, activity minute, cursor, two import runs")
    }

    /// Replaying the session again: the driver now asks only for records after offset 64, which the
    /// capture does not hold, so it is played passively; nothing is added.
    func testSecondReplayAddsNothing() throws {
        let store = try freshStore(zone: "Europe/Berlin")
        let importer = Importer(store: store)
        _ = try importer.replayOneBLE(captureAt: Self.files[0])
        let before = try tableCounts(store)
        let again = try importer.replayOneBLE(captureAt: Self.files[0])
        guard case .passive(let reason)? = again.replayMode else { return XCTFail("\(String(describing: again.replayMode))") }
        XCTAssertTrue(reason.hasPrefix("the capture does not hold the request 12 29 00 04 03 01 41 00"), reason)
        XCTAssertEqual(again.glucose.first?.summary.added, 0)
        XCTAssertEqual(again.glucose.first?.summary.alreadyStored, 6)
        XCTAssertEqual(again.activity?.summary.minutesAdded, 0)
        // Listening, the CGM driver saw the other program's RACP answers.
        XCTAssertTrue(again.glucose.first?.notes.contains("Record Access Control Point answer in the capture: 2 stored records") == true)
        var after = try tableCounts(store)
        XCTAssertEqual(after["import_run"], before["import_run"]! + 2)
        after["import_run"] = before["import_run"]
        XCTAssertEqual(after, before)
        XCTAssertEqual(try store.cursor(source: sensor, stream: stream), 64)
    }

    /// The real treadmill snoop (another app, vendor service): replayed passively without error,
    /// its services and notifications reported, nothing stored.
    func testTreadmillCaptureReplaysWithoutStoringAnything() throws {
        let store = try freshStore(zone: "UTC")
        let outcome = try Importer(store: store).replayOneBLE(captureAt: Fixtures.url("ble/horizon-74-at-ble/btsnoop_hci.log"))
        XCTAssertEqual(outcome.replayMode, .passive(reason: "the capture does not hold the request 02 41 00 (searched after record 0)"))
        XCTAssertEqual(outcome.identity?.peer.description, "HORIZON 7.4AT 55FD (FA:E4:E3:24:20:09, random)")
        XCTAssertEqual(outcome.session?.database.services.map(\.uuid), [0x1801, 0x1800, 0xFFF0, 0x1826, 0xFEE7].map(BluetoothUUID.init))
        XCTAssertEqual(outcome.session?.database.characteristics.count, 26)
        XCTAssertEqual(outcome.session?.reports.map(\.family), ["ble-ftms"])
        XCTAssertEqual(outcome.session?.unclaimed, [0x0014: 786, 0x0012: 261])
        XCTAssertEqual(outcome.unclaimed.first { $0.handle == 0x0014 }?.uuid, BluetoothUUID(0xFFF4))
        XCTAssertNil(outcome.activity)
        XCTAssertTrue(outcome.glucose.isEmpty)
        XCTAssertTrue(outcome.notes.contains("Fitness Machine: no measurements received"), "\(outcome.notes)")
        XCTAssertEqual(outcome.session?.ending, "the capture btsnoop_hci.log ends while the connection is still open")
        XCTAssertEqual(try tableCounts(store).values.reduce(0, +), 0, "nothing stored")
    }
}
