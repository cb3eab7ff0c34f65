import CaptureBluetooth
import Drivers
import Foundation
import ImportTestSupport
import Importer
import Ingest
import Model
import Pipeline
import Simulators
import Store
import TestSupport
import Transport
import XCTest

/// The CGM and Glucose drivers against simulated sensors whose right answers are known: E2E-CRC
/// failures, special values, RACP response codes, incremental downloads, a meter's context.
final class GlucoseServiceImportTests: XCTestCase {
    static let sessionStart = instant("2024-01-15T06:00:00Z")
    let cgmPeer = BLEPeer(address: BluetoothAddress("C0:FF:EE:00:00:02")!, addressType: .random, name: "SimCGM")
    let meterPeer = BLEPeer(address: BluetoothAddress("C0:FF:EE:00:00:03")!, addressType: .random, name: "SimMeter")

    /// One CGM Measurement record with its E2E-CRC: size, flags 0, SFLOAT glucose, offset.
    static func cgmRecord(_ glucose: UInt16, offset: UInt16) -> [UInt8] {
        E2ECRC.appending(to: [8, 0x00, UInt8(glucose & 0xFF), UInt8(glucose >> 8), UInt8(offset & 0xFF), UInt8(offset >> 8)])
    }

    /// A CGM sensor: Feature with E2E-CRC, Status at `statusOffset` minutes, Session Start Time
    /// 2024-01-15 07:00 at UTC+1 (06:00Z), measurements, RACP served by `server`.
    func cgm(server: RACPServer, live: [(at: Date, record: [UInt8])] = [], statusOffset: UInt16 = 90, clock: SimulatedClock) -> SimulatedPeripheral {
        let startTime = CGMSessionStartTime(
            localTime: GATTDateTime(year: 2024, month: 1, day: 15, hours: 7, minutes: 0, seconds: 0), timeZoneQuarterHours: 4,
            dstOffset: .standardTime)
        let peripheral = SimulatedPeripheral(
            peer: cgmPeer,
            services: [
                .init(
                    0x181F,
                    [
                        .init(0x2AA7, .notify), .init(0x2AA8, .read, value: E2ECRC.appending(to: [0x00, 0x10, 0x00, 0x59])),
                        .init(0x2AA9, .read, value: E2ECRC.appending(to: [UInt8(statusOffset & 0xFF), UInt8(statusOffset >> 8), 0, 0, 0])),
                        .init(0x2AAA, [.read, .write], value: startTime.encoded(withCRC: true)), .init(0x2A52, [.write, .indicate]),
                    ])
            ],
            schedule: live.map { .init(at: $0.at, 0x2AA7, $0.record) }, clock: clock)
        server.serve(on: peripheral)
        return peripheral
    }

    static func stored(_ records: [(UInt16, [UInt8])]) -> [(index: UInt16, values: [SimulatedPeripheral.Emission])] {
        records.map { ($0.0, [SimulatedPeripheral.Emission(0x2AA7, $0.1)]) }
    }

    func testCRCFailuresAndSpecialValuesAreCountedNotStored() throws {
        let clock = SimulatedClock(instant("2024-01-15T07:30:30Z"))
        var corrupted = Self.cgmRecord(121, offset: 91)
        corrupted[7] ^= 0xFF
        let server = RACPServer(Self.stored([(10, Self.cgmRecord(110, offset: 10)), (15, Self.cgmRecord(0x0800, offset: 15))]))
        let sensor = cgm(
            server: server,
            live: [
                (instant("2024-01-15T07:31:00Z"), Self.cgmRecord(120, offset: 90)),
                (instant("2024-01-15T07:32:00Z"), corrupted),
                (instant("2024-01-15T07:33:00Z"), Self.cgmRecord(0x07FE, offset: 92)),
            ], clock: clock)
        let store = try freshStore(zone: "UTC")
        let outcome = try Importer(store: store).importOneBLE(over: sensor, origin: "simulated CGM")

        XCTAssertEqual(server.requests, [[0x04, 0x01], [0x01, 0x01]], "count all, then report all")
        let cgm = try XCTUnwrap(outcome.glucose.first)
        XCTAssertEqual(cgm.source, DeviceSource(family: "ble-cgms", serial: "C0:FF:EE:00:00:02", model: "SimCGM"))
        XCTAssertEqual(cgm.summary.recordsRead, 5)
        XCTAssertEqual(cgm.summary.added, 2)
        XCTAssertEqual(
            Set(cgm.events.map { "\($0.name) \($0.count)" }),
            [
                "special-value-nres 1", "crc-mismatch 1", "special-value-positive-infinity 1",
            ])
        let computed = E2ECRC.checksum(corrupted.prefix(6))
        let carried = UInt16(corrupted[6]) | UInt16(corrupted[7]) << 8
        // The record is named by the time offset it carries (91 min) and the time that gives from
        // the session start (06:00Z), so a person can find it in the sensor's own history.
        XCTAssertEqual(
            outcome.problems,
            [
                .cgmRecord(
                    timeOffsetMinutes: 91, time: instant("2024-01-15T07:31:00Z"),
                    error: .crcMismatch(characteristic: .cgmMeasurement, offset: 6, carried: carried, computed: computed))
            ])
        XCTAssertEqual(
            "\(outcome.problems[0])",
            "the CGM record at time offset 91 min (would have been 2024-01-15T07:31:00Z) was left out: "
                + "CGM Measurement (0x2AA7) at byte 6: E2E-CRC is 0x\(String(format: "%04X", carried)) but the bytes before it give "
                + "0x\(String(format: "%04X", computed))")
        XCTAssertEqual(
            try store.glucose().map { "\(iso($0.time)) \($0.mgdl)" },
            [
                "2024-01-15T06:10:00.000Z 110.0", "2024-01-15T07:30:00.000Z 120.0",
            ])
        XCTAssertNil(
            try store.cursor(source: cgm.source, stream: "cgm@2024-01-15T06:00:00Z"),
            "a record lost to a bad CRC is asked for again next time")
        // The Status said offset 90 min (07:30:00Z) when the host clock read 07:30:30Z and a little.
        XCTAssertEqual(try XCTUnwrap(cgm.clock.offsetSeconds), 30, accuracy: 1)
    }

    func testRACPFailureKeepsTheLiveReadings() throws {
        let clock = SimulatedClock(instant("2024-01-15T07:30:30Z"))
        let server = RACPServer(Self.stored([(10, Self.cgmRecord(110, offset: 10))]))
        server.reportCode = 0x08
        let sensor = cgm(server: server, live: [(instant("2024-01-15T07:31:00Z"), Self.cgmRecord(120, offset: 90))], clock: clock)
        let store = try freshStore(zone: "UTC")
        let outcome = try Importer(store: store).importOneBLE(over: sensor, origin: "simulated CGM")
        XCTAssertEqual(
            outcome.problems,
            [.racpFailed(service: .continuousGlucoseMonitoring, request: .reportStoredRecords(.all), code: .procedureNotCompleted)])
        XCTAssertEqual(
            "\(outcome.problems[0])",
            "Continuous Glucose Monitoring: the device answered the Record Access Control Point request 01 01 with \"procedure not "
                + "completed\" (code 8); stored records were not downloaded")
        XCTAssertEqual(try store.glucose().map(\.mgdl), [110, 120], "what arrived is kept")
        XCTAssertNil(try store.cursor(source: outcome.glucose[0].source, stream: "cgm@2024-01-15T06:00:00Z"))
    }

    /// The sensor leaves during the download: what arrived is kept, the position is not moved.
    func testDisconnectDuringDownload() throws {
        let server = RACPServer(Self.stored([(10, Self.cgmRecord(110, offset: 10)), (20, Self.cgmRecord(111, offset: 20))]))
        server.reportCode = nil
        let store = try freshStore(zone: "UTC")
        let outcome = try Importer(store: store).importOneBLE(
            over: cgm(server: server, clock: SimulatedClock(Self.sessionStart)), origin: "sim")
        XCTAssertEqual(
            outcome.problems,
            [
                .racpIncomplete(
                    service: .continuousGlucoseMonitoring, request: .reportStoredRecords(.all),
                    reason: "the connection ended (the device ended the connection)")
            ])
        XCTAssertEqual(
            "\(outcome.problems[0])",
            "Continuous Glucose Monitoring: the download of stored records (01 01) ended before the device's response code: the "
                + "connection ended (the device ended the connection); the records received were kept")
        XCTAssertEqual(outcome.session?.ending, "the device ended the connection")
        XCTAssertEqual(try store.glucose().map(\.mgdl), [110, 111])
        XCTAssertNil(try store.cursor(source: outcome.glucose[0].source, stream: "cgm@2024-01-15T06:00:00Z"))
    }

    /// The second import asks only for records after the last one stored; "no records found" is
    /// a normal end. A device that refuses the filter is asked for everything instead.
    func testIncrementalDownloads() throws {
        let records = Self.stored([(10, Self.cgmRecord(110, offset: 10)), (20, Self.cgmRecord(111, offset: 20))])
        let store = try freshStore(zone: "UTC")
        let importer = Importer(store: store)
        let first = try importer.importOneBLE(over: cgm(server: RACPServer(records), clock: SimulatedClock(Self.sessionStart)), origin: "sim")
        XCTAssertEqual(first.glucose.first?.summary.added, 2)
        let source = try XCTUnwrap(first.glucose.first?.source)
        XCTAssertEqual(try store.cursor(source: source, stream: "cgm@2024-01-15T06:00:00Z"), 20)

        let incremental = RACPServer(records)
        let second = try importer.importOneBLE(over: cgm(server: incremental, clock: SimulatedClock(Self.sessionStart)), origin: "sim")
        XCTAssertEqual(incremental.requests, [[0x04, 0x03, 0x01, 21, 0x00]], "≥ offset 21: the device holds none")
        XCTAssertEqual(second.problems, [])
        XCTAssertTrue(second.glucose.isEmpty)
        XCTAssertTrue(second.notes.contains("Continuous Glucose Monitoring: no records received"), "\(second.notes)")

        let refusing = RACPServer(records)
        refusing.refuseAtLeast = 0x04
        let third = try importer.importOneBLE(over: cgm(server: refusing, clock: SimulatedClock(Self.sessionStart)), origin: "sim")
        XCTAssertEqual(refusing.requests, [[0x04, 0x03, 0x01, 21, 0x00], [0x04, 0x01], [0x01, 0x01]])
        XCTAssertEqual(third.problems, [])
        XCTAssertEqual(third.glucose.first?.summary.added, 0)
        XCTAssertEqual(third.glucose.first?.summary.alreadyStored, 2)
        XCTAssertTrue(
            third.notes.contains(
                "Continuous Glucose Monitoring: the device refused the filter of filter 03 01 15 00 (operator not supported); all records were asked for"
            ),
            "\(third.notes)")
        XCTAssertEqual(try store.glucose().count, 2)
    }

    /// A CGM whose Session Start Time has an unknown zone: its readings cannot be placed, so they
    /// are counted and the problem named; nothing is stored as a reading.
    func testUnknownSessionStartIsNamed() throws {
        let clock = SimulatedClock(Self.sessionStart)
        let sensor = cgm(server: RACPServer(Self.stored([(10, Self.cgmRecord(110, offset: 10))])), clock: clock)
        let unknownZone = CGMSessionStartTime(
            localTime: GATTDateTime(year: 2024, month: 1, day: 15, hours: 7, minutes: 0, seconds: 0), timeZoneQuarterHours: nil,
            dstOffset: .standardTime)
        sensor.setValue(unknownZone.encoded(withCRC: true), of: 0x2AAA)
        let store = try freshStore(zone: "UTC")
        let outcome = try Importer(store: store).importOneBLE(over: sensor, origin: "sim")
        XCTAssertEqual(outcome.problems, [.noSessionStartTime(reason: "its Session Start Time 2024-01-15T07:00:00 has an unknown date, zone or DST")])
        XCTAssertEqual(outcome.glucose.first?.events, [ImportEvent(name: "no-session-start-time", count: 1)])
        XCTAssertEqual(try store.glucose().count, 0)
    }

    // MARK: - Glucose service (meters)

    /// Glucose Measurement: flags, sequence, base time 2024-05-01 07:30:00, offset +5 min, SFLOAT
    /// concentration, type/location, sensor status.
    static func meterMeasurement(flags: UInt8, sequence: UInt16, concentration: UInt16, sample: UInt8, status: UInt16? = nil) -> [UInt8] {
        GlucoseMeterDemo.measurement(
            flags: flags, sequence: sequence, baseTime: GATTDateTime(year: 2024, month: 5, day: 1, hours: 7, minutes: 30, seconds: 0),
            offsetMinutes: 5, concentration: concentration, sample: sample, status: status)
    }

    /// A meter whose Device Information strings carry padding ("Sim Meters\0\0", "M-42 ").
    func meter(server: RACPServer) -> SimulatedPeripheral {
        GlucoseMeterDemo.meter(
            server: server, peer: meterPeer,
            deviceInformation: [.init(0x2A29, .read, value: Array("Sim Meters\0\0".utf8)), .init(0x2A25, .read, value: Array("M-42 ".utf8))],
            clock: SimulatedClock(instant("2024-05-01T06:00:00Z")))
    }

    func testMeterRecordsAndContextExercise() throws {
        func notify(_ uuid: UInt16, _ bytes: [UInt8]) -> SimulatedPeripheral.Emission { .init(uuid, bytes) }
        let records: [(index: UInt16, values: [SimulatedPeripheral.Emission])] = [
            // 105 mg/dL = 105e−5 kg/L, capillary whole blood from a finger, with a context:
            // exercise 1800 s at 50 %.
            (
                1,
                [
                    notify(0x2A18, Self.meterMeasurement(flags: 0x13, sequence: 1, concentration: 0xB069, sample: 0x11)),
                    notify(0x2A34, [0x08, 0x01, 0x00, 0x08, 0x07, 50]),
                ]
            ),
            // Control solution.
            (2, [notify(0x2A18, Self.meterMeasurement(flags: 0x03, sequence: 2, concentration: 0xB064, sample: 0x4A))]),
            // 5.5 mmol/L = 55e−4 mol/L.
            (3, [notify(0x2A18, Self.meterMeasurement(flags: 0x07, sequence: 3, concentration: 0xC037, sample: 0x11))]),
            // 600e−5 kg/L with "result above device range".
            (4, [notify(0x2A18, Self.meterMeasurement(flags: 0x0B, sequence: 4, concentration: 0xB258, sample: 0x11, status: 0x0020))]),
            // NaN.
            (5, [notify(0x2A18, Self.meterMeasurement(flags: 0x03, sequence: 5, concentration: 0x07FF, sample: 0x11))]),
        ]
        let store = try freshStore(zone: "Europe/Berlin")
        let importer = Importer(store: store)
        let outcome = try importer.importOneBLE(over: meter(server: RACPServer(records)), origin: "simulated meter")
        XCTAssertEqual(outcome.problems, [])
        XCTAssertEqual(outcome.identity?.manufacturer, "Sim Meters")
        XCTAssertEqual(outcome.identity?.serial, "M-42")
        let meterSource = DeviceSource(family: "ble-glucose", serial: "M-42", model: "Sim Meters")
        let glucose = try XCTUnwrap(outcome.glucose.first)
        XCTAssertEqual(glucose.source, meterSource)
        XCTAssertEqual(glucose.summary.recordsRead, 5)
        XCTAssertEqual(glucose.summary.added, 3)
        XCTAssertEqual(glucose.events, [ImportEvent(name: "control-solution", count: 1), ImportEvent(name: "special-value-nan", count: 1)])
        XCTAssertEqual(glucose.clock.method, .deviceLocalTime)

        // 07:35 on the meter's clock, read in Berlin (CEST, UTC+2): 05:35Z.
        let stored = try store.glucose()
        XCTAssertEqual(stored.map { iso($0.time) }, Array(repeating: "2024-05-01T05:35:00.000Z", count: 3))
        XCTAssertEqual(stored.map(\.recordKey), ["meter:1", "meter:3", "meter:4"])
        XCTAssertEqual(stored[0].mgdl, 105)
        XCTAssertEqual(stored[1].mgdl, 5.5 * GlucoseUnit.mgdlPerMmol, accuracy: 1e-9)
        XCTAssertEqual(stored[1].unit, .millimolesPerLiter)
        XCTAssertEqual(stored[2].mgdl, 600)
        XCTAssertEqual(stored[2].flag, .aboveRange)
        XCTAssertEqual(Set(stored.map(\.kind)), [.fingerstick])
        XCTAssertEqual(stored[0].displayTime, "2024-05-01T07:35:00")
        XCTAssertEqual(try store.cursor(source: meterSource, stream: "meter"), 5)

        // The context's exercise: 30 minutes ending at the reading, 50 % → moderate.
        let exercise = try store.logs(ExerciseLog.self)
        XCTAssertEqual(exercise.count, 1)
        XCTAssertEqual(exercise.first?.log.time, instant("2024-05-01T05:05:00Z"))
        XCTAssertEqual(exercise.first?.log.duration, 1800)
        XCTAssertEqual(exercise.first?.log.intensity, .moderate)
        XCTAssertEqual(exercise.first?.log.name, "Activity")
        XCTAssertEqual(exercise.first?.recordKey, "meter-exercise:1")
        XCTAssertEqual(exercise.first?.day, DayDate("2024-05-01")!)
        XCTAssertEqual(outcome.meterExercise?.summary.sessionsAdded, 1)

        // Again: only records after sequence 5 are asked for; nothing is added.
        let server = RACPServer(records)
        let again = try importer.importOneBLE(over: meter(server: server), origin: "simulated meter")
        XCTAssertEqual(server.requests, [[0x04, 0x03, 0x01, 0x06, 0x00]])
        XCTAssertTrue(again.glucose.isEmpty)
        XCTAssertEqual(try store.glucose().count, 3)
        XCTAssertEqual(try store.logs(ExerciseLog.self).count, 1)
    }

    /// Exercise intensity percentages on the heart-rate-reserve scale, and the end-at-reading rule.
    func testMeterExerciseMapping() throws {
        let clock = DeviceClock(epoch: Date(timeIntervalSince1970: 0), basis: .localWallClock)
        let noted = [(39, ActivityIntensity.light), (40, .moderate), (59, .moderate), (60, .vigorous), (100, .vigorous)]
        let sessions = Normaliser.exerciseSessions(
            noted.enumerated().map { DeviceExercise(deviceSeconds: 3600, durationSeconds: 89, intensityPercent: $1.0, recordKey: "k\($0)") },
            clock: clock, timeZone: TimeZone(identifier: "UTC")!)
        XCTAssertEqual(sessions.map(\.intensity), noted.map(\.1))
        XCTAssertEqual(sessions.map(\.minutes), Array(repeating: 1, count: 5), "89 s round to 1 minute")
        XCTAssertEqual(sessions.first?.start, Date(timeIntervalSince1970: 3540))
        XCTAssertEqual(sessions.map(\.recordKey), ["k0", "k1", "k2", "k3", "k4"])
    }
}
