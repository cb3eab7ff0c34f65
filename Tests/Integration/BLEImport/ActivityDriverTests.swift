import CaptureBluetooth
import Drivers
import Foundation
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import Transport
import XCTest

/// The running, cycling and fitness-machine drivers against simulated sensors whose right answer
/// is known, through the whole import.
final class ActivityDriverTests: XCTestCase {
    /// 2024-05-02T16:00:00Z.
    let start = instant("2024-05-02T16:00:00Z")

    func device(_ address: String, _ services: [SimulatedPeripheral.Service], _ schedule: [SimulatedPeripheral.Emission]) -> SimulatedPeripheral {
        SimulatedPeripheral(
            peer: BLEPeer(address: BluetoothAddress(address)!, addressType: .random), services: services, schedule: schedule,
            clock: SimulatedClock(start))
    }

    /// A watch with heart rate and a running pod: 30 minutes at 115 steps/min, walking, 1.6 m/s.
    /// Both services feed one source, so one Walking session (moderate by cadence) comes out.
    func testWatchWithHeartRateAndRunningPod() throws {
        var schedule: [SimulatedPeripheral.Emission] = []
        var decimetres: UInt32 = 1000
        for second in 0..<1800 {
            let time = start.addingTimeInterval(TimeInterval(second))
            schedule.append(.init(at: time, 0x2A37, [0x06, 110]))
            if second % 2 == 0 {
                decimetres += 32
                // Walking at 410/256 m/s, 115 steps/min, with the total distance.
                schedule.append(
                    .init(
                        at: time, 0x2A53, SportSensorDemo.rscMeasurement(speed256: 410, cadence: 115, totalDecimetres: decimetres, running: false)))
            }
        }
        let watch = device("C0:FF:EE:00:00:04", [.init(0x180D, [.init(0x2A37, .notify)]), SportSensorDemo.runningService], schedule)
        let store = try freshStore(zone: "UTC")
        let outcome = try Importer(store: store).importOneBLE(over: watch, origin: "sim")
        let activity = try XCTUnwrap(outcome.activity)
        XCTAssertEqual(activity.source.family, "ble")
        XCTAssertEqual(activity.services, ["ble-hrs", "ble-rsc"])
        XCTAssertEqual(
            try sqlite3(
                store.path, "SELECT s.family || ' ' || v.service FROM source s JOIN source_service v ON v.source_id = s.id ORDER BY v.service;"),
            "ble ble-hrs\nble ble-rsc")
        XCTAssertEqual(activity.summary.samplesRead, 2700)
        XCTAssertEqual(activity.sessions.map { "\($0.kind.rawValue) \($0.minutes) \($0.intensity.rawValue)" }, ["Walking 30 moderate"])
        let minute = try XCTUnwrap(try store.activityMinutes().first { $0.minute.start == start.addingTimeInterval(600) }?.minute)
        XCTAssertEqual(minute.sensors, [.heartRateBand, .runningPod])
        XCTAssertEqual(minute.heartRate, 110)
        XCTAssertEqual(minute.stepCadence, 115)
        XCTAssertEqual(try XCTUnwrap(minute.speed), 410.0 / 256, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(minute.distance), 96, accuracy: 1e-9, "30 samples × 3.2 m")
        XCTAssertEqual(minute.gait, .walking)
    }

    /// A bike sensor for 20 minutes, one notification a second: 2 wheel revolutions and 4/3 crank
    /// revolutions a second, both counters and both event times rolling over during the ride.
    /// Speed 2 × 2.096 m/s (moderate), 80 rpm, distance summed across the rollovers.
    func testBikeSensorAcrossRollovers() throws {
        let schedule = (0..<1200).map { second in
            SimulatedPeripheral.Emission(
                at: start.addingTimeInterval(TimeInterval(second)), 0x2A5B, SportSensorDemo.Sensor.bike.value(at: second).bytes)
        }
        let bike = device("C0:FF:EE:00:00:05", [SportSensorDemo.cyclingService], schedule)
        let store = try freshStore(zone: "UTC")
        let outcome = try Importer(store: store).importOneBLE(over: bike, origin: "sim")
        let activity = try XCTUnwrap(outcome.activity)
        XCTAssertEqual(activity.source.family, "ble")
        XCTAssertEqual(activity.services, ["ble-csc"])
        XCTAssertEqual(activity.summary.samplesRead, 1199, "the first notification only sets the counters")
        XCTAssertEqual(activity.sessions.map { "\($0.kind.rawValue) \($0.minutes) \($0.intensity.rawValue)" }, ["Cycling 20 moderate"])
        let minutes = try store.activityMinutes().map(\.minute)
        XCTAssertEqual(minutes.count, 20)
        for minute in minutes {
            XCTAssertEqual(try XCTUnwrap(minute.speed), 4.192, accuracy: 1e-9)
            XCTAssertEqual(try XCTUnwrap(minute.crankCadence), 80, accuracy: 1e-9)
        }
        // Distance: 2 revolutions of 2.096 m a second; the first sample's running total only sets
        // the base the resampler counts from.
        XCTAssertEqual(try XCTUnwrap(minutes[5].distance), 60 * 4.192, accuracy: 1e-6)
        XCTAssertEqual(minutes.compactMap(\.distance).reduce(0, +), 1198 * 4.192, accuracy: 1e-6)
    }

    /// A treadmill on the Fitness Machine service: speed and distance are stored per minute; a
    /// machine's speed alone grades no session.
    func testTreadmillData() throws {
        var schedule: [SimulatedPeripheral.Emission] = []
        for second in 1...300 {
            // 5.00 km/h, with the total distance in metres.
            schedule.append(
                .init(
                    at: start.addingTimeInterval(TimeInterval(second)), 0x2ACD,
                    SportSensorDemo.treadmillData(speedHundredthsKmh: 500, totalMetres: UInt32(second * 14 / 10))))
        }
        let treadmill = device("C0:FF:EE:00:00:06", [SportSensorDemo.fitnessMachineService], schedule)
        let store = try freshStore(zone: "UTC")
        let outcome = try Importer(store: store).importOneBLE(over: treadmill, origin: "sim")
        XCTAssertEqual(outcome.activity?.source.family, "ble")
        XCTAssertEqual(outcome.activity?.services, ["ble-ftms"])
        XCTAssertEqual(outcome.activity?.summary.samplesRead, 300)
        XCTAssertEqual(outcome.activity?.sessions.count, 0)
        let minutes = try store.activityMinutes().map(\.minute)
        XCTAssertEqual(minutes.count, 6)
        XCTAssertEqual(try XCTUnwrap(minutes[2].speed), 5 / 3.6, accuracy: 1e-12)
        XCTAssertEqual(minutes[2].sensors, [.fitnessMachine])
    }

    /// The lab's demo sensors (`glucobridge-lab-device ble running-pod|bike|treadmill`), two
    /// minutes each: the minutes carry the values their notifications were made from.
    func testDemoSportSensors() throws {
        func minutes(_ sensor: SportSensorDemo.Sensor) throws -> (services: [DeviceFamily]?, samples: Int?, minutes: [ActivityMinute]) {
            let store = try freshStore(zone: "UTC")
            let demo = SportSensorDemo.device(sensor, seconds: 120, start: start, clock: SimulatedClock(start))
            let outcome = try Importer(store: store).importOneBLE(over: demo, origin: "sim")
            XCTAssertEqual(outcome.problems, [], "\(sensor)")
            XCTAssertEqual(outcome.activity?.source.family, "ble")
            return (outcome.activity?.services, outcome.activity?.summary.samplesRead, try store.activityMinutes().map(\.minute))
        }
        let pod = try minutes(.runningPod)
        XCTAssertEqual(pod.services, ["ble-rsc"])
        XCTAssertEqual(pod.samples, 120)
        XCTAssertEqual(pod.minutes.map(\.gait), [.walking, .running])
        XCTAssertEqual(pod.minutes.map(\.stepCadence), [110, 165])
        XCTAssertEqual(pod.minutes.compactMap(\.speed), [1.5, 819.0 / 256])
        XCTAssertEqual(pod.minutes.compactMap(\.distance), [88.5, 190.3], "the first sample's total only sets the base")

        let bike = try minutes(.bike)
        XCTAssertEqual(bike.services, ["ble-csc"])
        XCTAssertEqual(bike.samples, 119, "the first notification only sets the counters")
        XCTAssertEqual(bike.minutes.count, 2)
        for minute in bike.minutes {
            XCTAssertEqual(try XCTUnwrap(minute.speed), 4.192, accuracy: 1e-9)
            XCTAssertEqual(try XCTUnwrap(minute.crankCadence), 80, accuracy: 1e-9)
        }

        let treadmill = try minutes(.treadmill)
        XCTAssertEqual(treadmill.services, ["ble-ftms"])
        XCTAssertEqual(treadmill.samples, 120)
        XCTAssertEqual(treadmill.minutes.map(\.sensors), [[.fitnessMachine], [.fitnessMachine]])
        XCTAssertEqual(try XCTUnwrap(treadmill.minutes.first?.speed), 8.5 / 3.6, accuracy: 1e-12)
        // 120 bpm + a beat every 8 s, averaged: 120 + 196/60, then 120 + 644/60.
        XCTAssertEqual(try XCTUnwrap(treadmill.minutes.first?.heartRate), 120 + 196.0 / 60, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(treadmill.minutes.last?.heartRate), 120 + 644.0 / 60, accuracy: 1e-9)
    }

    /// A device with none of the services glucobridge reads fails with a line naming what it has.
    func testNoSupportedService() throws {
        let gadget = device("C0:FF:EE:00:00:07", [.init(0x180A, [.init(0x2A29, .read, value: Array("Acme".utf8))]), .init(0xFFF0, [])], [])
        let store = try freshStore(zone: "UTC")
        XCTAssertThrowsError(try Importer(store: store).importOneBLE(over: gadget, origin: "sim")) { error in
            XCTAssertEqual(
                "\(error)",
                "the device has none of the Bluetooth services glucobridge reads (heart rate, running or cycling speed and cadence, "
                    + "fitness machine, CGM, glucose); services found: Device Information (0x180A), 0xFFF0")
        }
        XCTAssertEqual(try tableCounts(store).values.reduce(0, +), 0)
    }
}
