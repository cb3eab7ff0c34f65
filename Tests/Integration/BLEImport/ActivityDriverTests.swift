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
                // Flags: total distance present, walking; speed 410/256 m/s; cadence 115.
                schedule.append(.init(at: time, 0x2A53, [0x02, 0x9A, 0x01, 115] + withUnsafeBytes(of: decimetres.littleEndian, Array.init)))
            }
        }
        let watch = device(
            "C0:FF:EE:00:00:04",
            [.init(0x180D, [.init(0x2A37, .notify)]), .init(0x1814, [.init(0x2A53, .notify)])], schedule)
        let store = try freshStore(zone: "UTC")
        let outcome = try Importer(store: store).importOneBLE(over: watch, origin: "sim")
        let activity = try XCTUnwrap(outcome.activity)
        XCTAssertEqual(activity.source.family, "ble-hrs+ble-rsc")
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
        var schedule: [SimulatedPeripheral.Emission] = []
        for second in 0..<1200 {
            let wheel = (UInt32.max - 100) &+ UInt32(2 * second)
            let wheelTime = UInt16(truncatingIfNeeded: second * 1024)
            let crankRevolutions = second * 4 / 3
            let crank = UInt16(truncatingIfNeeded: 65_500 + crankRevolutions)
            let crankTime = UInt16(truncatingIfNeeded: crankRevolutions * 768)
            var value: [UInt8] = [0x03]
            value += withUnsafeBytes(of: wheel.littleEndian, Array.init) + withUnsafeBytes(of: wheelTime.littleEndian, Array.init)
            value += withUnsafeBytes(of: crank.littleEndian, Array.init) + withUnsafeBytes(of: crankTime.littleEndian, Array.init)
            schedule.append(.init(at: start.addingTimeInterval(TimeInterval(second)), 0x2A5B, value))
        }
        let bike = device("C0:FF:EE:00:00:05", [.init(0x1816, [.init(0x2A5B, .notify)])], schedule)
        let store = try freshStore(zone: "UTC")
        let outcome = try Importer(store: store).importOneBLE(over: bike, origin: "sim")
        let activity = try XCTUnwrap(outcome.activity)
        XCTAssertEqual(activity.source.family, "ble-csc")
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
            // Flags 0x0004: instantaneous speed 5.00 km/h, total distance (u24 m).
            let metres = UInt32(second * 14 / 10)
            schedule.append(.init(
                at: start.addingTimeInterval(TimeInterval(second)), 0x2ACD,
                [0x04, 0x00, 0xF4, 0x01, UInt8(metres & 0xFF), UInt8(metres >> 8 & 0xFF), UInt8(metres >> 16)]))
        }
        let treadmill = device("C0:FF:EE:00:00:06", [.init(0x1826, [.init(0x2ACC, .read), .init(0x2ACD, .notify)])], schedule)
        let store = try freshStore(zone: "UTC")
        let outcome = try Importer(store: store).importOneBLE(over: treadmill, origin: "sim")
        XCTAssertEqual(outcome.activity?.source.family, "ble-ftms")
        XCTAssertEqual(outcome.activity?.summary.samplesRead, 300)
        XCTAssertEqual(outcome.activity?.sessions.count, 0)
        let minutes = try store.activityMinutes().map(\.minute)
        XCTAssertEqual(minutes.count, 6)
        XCTAssertEqual(try XCTUnwrap(minutes[2].speed), 5 / 3.6, accuracy: 1e-12)
        XCTAssertEqual(minutes[2].sensors, [.fitnessMachine])
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
