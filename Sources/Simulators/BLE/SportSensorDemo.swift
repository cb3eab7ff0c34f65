import Foundation
import Transport

/// Sport sensors on the standard services glucobridge's activity drivers read, notifying once a
/// second: a running pod (Running Speed and Cadence 0x1814), a bike speed and cadence sensor
/// (Cycling Speed and Cadence 0x1816) and a treadmill (Fitness Machine 0x1826, Treadmill Data).
/// The value encoders follow the Bluetooth SIG's GATT Specification Supplement (RSC Measurement,
/// CSC Measurement, Treadmill Data). All bytes are made here (synthetic data, no device was
/// involved).
package enum SportSensorDemo {
    package static let manufacturer = "glucobridge simulator"

    // MARK: - Value encoders

    static func u16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func u32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

    /// An RSC Measurement: flags (bit 0 stride length present, bit 1 total distance present,
    /// bit 2 running), speed u16 in 1/256 m/s, cadence u8 per minute, stride length u16 in cm,
    /// total distance u32 in dm.
    package static func rscMeasurement(
        speed256: UInt16, cadence: UInt8, strideCentimetres: UInt16? = nil, totalDecimetres: UInt32? = nil, running: Bool
    ) -> [UInt8] {
        var flags: UInt8 = running ? 0x04 : 0
        var fields: [UInt8] = []
        if let strideCentimetres {
            flags |= 0x01
            fields += u16(strideCentimetres)
        }
        if let totalDecimetres {
            flags |= 0x02
            fields += u32(totalDecimetres)
        }
        return [flags] + u16(speed256) + [cadence] + fields
    }

    /// A CSC Measurement: flags (bit 0 wheel revolution data present, bit 1 crank revolution data
    /// present), cumulative wheel revolutions u32 and last wheel event time u16 (1/1024 s),
    /// cumulative crank revolutions u16 and last crank event time u16 (1/1024 s).
    package static func cscMeasurement(wheel: (revolutions: UInt32, eventTime: UInt16)?, crank: (revolutions: UInt16, eventTime: UInt16)?) -> [UInt8]
    {
        var flags: UInt8 = 0
        var fields: [UInt8] = []
        if let wheel {
            flags |= 0x01
            fields += u32(wheel.revolutions) + u16(wheel.eventTime)
        }
        if let crank {
            flags |= 0x02
            fields += u16(crank.revolutions) + u16(crank.eventTime)
        }
        return [flags] + fields
    }

    /// Treadmill Data: flags u16 (bit 0 clear: instantaneous speed present; bit 2 total distance
    /// present; bit 8 heart rate present), instantaneous speed u16 in 0.01 km/h, total distance u24
    /// in m, heart rate u8 in beats per minute.
    package static func treadmillData(speedHundredthsKmh: UInt16, totalMetres: UInt32? = nil, heartRate: UInt8? = nil) -> [UInt8] {
        var flags: UInt16 = 0
        var fields = u16(speedHundredthsKmh)
        if let totalMetres {
            flags |= 0x0004
            fields += [UInt8(totalMetres & 0xFF), UInt8(totalMetres >> 8 & 0xFF), UInt8(totalMetres >> 16 & 0xFF)]
        }
        if let heartRate {
            flags |= 0x0100
            fields.append(heartRate)
        }
        return u16(flags) + fields
    }

    // MARK: - Services

    /// Running Speed and Cadence: RSC Measurement (notify) and RSC Feature (stride length, total
    /// distance and walking/running status supported).
    package static let runningService = SimulatedPeripheral.Service(0x1814, [.init(0x2A53, .notify), .init(0x2A54, .read, value: u16(0x0007))])
    /// Cycling Speed and Cadence: CSC Measurement (notify) and CSC Feature (wheel and crank
    /// revolution data supported).
    package static let cyclingService = SimulatedPeripheral.Service(0x1816, [.init(0x2A5B, .notify), .init(0x2A5C, .read, value: u16(0x0003))])
    /// Fitness Machine: Fitness Machine Feature (total distance and heart rate supported, no
    /// target settings) and Treadmill Data (notify).
    package static let fitnessMachineService = SimulatedPeripheral.Service(
        0x1826, [.init(0x2ACC, .read, value: u32(0x0000_0404) + u32(0)), .init(0x2ACD, .notify)])

    // MARK: - The demo sensors

    /// Which demo sensor.
    package enum Sensor: String, CaseIterable, Sendable {
        case runningPod = "running-pod"
        case bike
        case treadmill

        package var peer: BLEPeer {
            switch self {
            case .runningPod: BLEPeer(address: BluetoothAddress("C0:FF:EE:00:00:0E")!, addressType: .random, name: "SimPod RSC")
            case .bike: BLEPeer(address: BluetoothAddress("C0:FF:EE:00:00:0F")!, addressType: .random, name: "SimBike CSC")
            case .treadmill: BLEPeer(address: BluetoothAddress("C0:FF:EE:00:00:10")!, addressType: .random, name: "SimTread FTMS")
            }
        }

        var service: SimulatedPeripheral.Service {
            switch self {
            case .runningPod: runningService
            case .bike: cyclingService
            case .treadmill: fitnessMachineService
            }
        }

        var serial: String {
            switch self {
            case .runningPod: "SIM-RSC-0001"
            case .bike: "SIM-CSC-0001"
            case .treadmill: "SIM-FTMS-0001"
            }
        }

        /// The value notified `second` seconds into the session (from 0).
        package func value(at second: Int) -> (characteristic: UInt16, bytes: [UInt8]) {
            switch self {
            case .runningPod: (0x2A53, SportSensorDemo.runningPodValue(at: second))
            case .bike: (0x2A5B, SportSensorDemo.bikeValue(at: second))
            case .treadmill: (0x2ACD, SportSensorDemo.treadmillValue(at: second))
            }
        }
    }

    /// The running pod: a minute walking (1.5 m/s, 110 steps/min, 82 cm strides), then running
    /// (3.2 m/s, 165 steps/min, 116 cm strides); the total distance counts each second's metres.
    static func runningPodValue(at second: Int) -> [UInt8] {
        let walking = second < 60
        let decimetres = 15 * min(second, 60) + 32 * max(0, second - 60)
        return rscMeasurement(
            speed256: walking ? 384 : 819, cadence: walking ? 110 : 165, strideCentimetres: walking ? 82 : 116,
            totalDecimetres: UInt32(decimetres), running: !walking)
    }

    /// The bike sensor: two wheel revolutions (2 × 2.096 m) and 4/3 crank revolutions (80 rpm) a
    /// second, its wheel counter rolling over after 50 s and both event times every 64 s.
    static func bikeValue(at second: Int) -> [UInt8] {
        let crankRevolutions = second * 4 / 3
        return cscMeasurement(
            wheel: ((UInt32.max - 100) &+ UInt32(2 * second), UInt16(truncatingIfNeeded: second * 1024)),
            crank: (UInt16(truncatingIfNeeded: 65_500 + crankRevolutions), UInt16(truncatingIfNeeded: crankRevolutions * 768)))
    }

    /// The treadmill: 8.50 km/h, the distance in whole metres, the runner's heart rate rising from
    /// 120 to 150 bpm.
    static func treadmillValue(at second: Int) -> [UInt8] {
        treadmillData(speedHundredthsKmh: 850, totalMetres: UInt32(second * 850 / 360), heartRate: UInt8(120 + min(30, second / 8)))
    }

    /// `sensor` with Device Information, notifying once a second from `start` for `seconds`.
    package static func device(_ sensor: Sensor, seconds: Int, start: Date, clock: SimulatedClock) -> SimulatedPeripheral {
        let schedule = (0..<max(1, seconds)).map { second in
            let value = sensor.value(at: second)
            return SimulatedPeripheral.Emission(at: start.addingTimeInterval(TimeInterval(second)), value.characteristic, value.bytes)
        }
        return SimulatedPeripheral(
            peer: sensor.peer,
            services: [
                .init(0x1800, [.init(0x2A00, .read, value: Array(sensor.peer.name!.utf8))]),
                .init(0x180A, [.init(0x2A29, .read, value: Array(manufacturer.utf8)), .init(0x2A25, .read, value: Array(sensor.serial.utf8))]),
                sensor.service,
            ],
            schedule: schedule, clock: clock)
    }
}
