import CaptureBluetooth
import Drivers
import Foundation
import Transport
import TransportReplay

/// A Bluetooth CGM on the standard Continuous Glucose Monitoring service (0x181F) whose stored
/// readings carry decimals, as SFLOAT values do: each reading is mantissa × 10⁻¹ mg/dL (`539`
/// is 53.9), one every 5 minutes from 10 minutes into the session, served through the Record
/// Access Control Point, each record with its E2E-CRC. The session started 2024-01-15 07:00 at
/// UTC+1 (06:00Z); the sensor is read 90.5 minutes later. All bytes are made here (synthetic
/// data, no device was involved), for tests of values at the consensus edges.
package enum ContinuousGlucoseSensorDemo {
    /// The session's start: 2024-01-15T06:00:00Z.
    package static let sessionStart = Date(timeIntervalSince1970: 1_705_298_400)
    /// When the sensor is connected: 90 minutes 30 seconds into the session.
    package static let connected = sessionStart.addingTimeInterval(90 * 60 + 30)
    /// The first reading's offset, and the spacing of the rest, in minutes.
    package static let firstOffset = 10
    package static let interval = 5

    package static let peer = BLEPeer(address: BluetoothAddress("C0:FF:EE:00:00:0C")!, addressType: .random, name: "SimCGM decimals")
    package static let manufacturer = "glucobridge simulator"
    package static let model = "CGM with decimals"
    package static let serial = "SIM-CGM-0001"

    /// The session time offset (minutes) of reading `index`.
    package static func offset(_ index: Int) -> Int { firstOffset + interval * index }

    /// An SFLOAT of `tenths` × 10⁻¹ (exponent −1 in the high nibble, 12-bit mantissa).
    package static func sfloat(tenths: Int) -> UInt16 {
        precondition((0..<0x07FE).contains(tenths), "an SFLOAT mantissa is below 2046")
        return 0xF000 | UInt16(tenths)
    }

    /// One CGM Measurement record: size, flags 0, SFLOAT glucose, time offset, E2E-CRC.
    package static func record(tenths: Int, offset: Int) -> [UInt8] {
        let glucose = sfloat(tenths: tenths)
        return E2ECRC.appending(to: [8, 0x00, UInt8(glucose & 0xFF), UInt8(glucose >> 8), UInt8(offset & 0xFF), UInt8(offset >> 8)])
    }

    /// The simulated sensor holding `tenths` (53.9 mg/dL is 539), on `clock`.
    package static func sensor(tenths: [Int], clock: SimulatedClock) -> SimulatedPeripheral {
        let server = RACPServer(
            tenths.enumerated().map { index, value in
                (UInt16(offset(index)), [SimulatedPeripheral.Emission(0x2AA7, record(tenths: value, offset: offset(index)))])
            })
        let startTime = CGMSessionStartTime(
            localTime: GATTDateTime(year: 2024, month: 1, day: 15, hours: 7, minutes: 0, seconds: 0), timeZoneQuarterHours: 4,
            dstOffset: .standardTime)
        let now = UInt16(connected.timeIntervalSince(sessionStart) / 60)
        func text(_ string: String) -> [UInt8] { Array(string.utf8) }
        let peripheral = SimulatedPeripheral(
            peer: peer,
            services: [
                .init(0x1800, [.init(0x2A00, .read, value: text(peer.name!))]),
                .init(
                    0x180A,
                    [
                        .init(0x2A29, .read, value: text(manufacturer)), .init(0x2A24, .read, value: text(model)),
                        .init(0x2A25, .read, value: text(serial)),
                    ]),
                .init(
                    0x181F,
                    [
                        .init(0x2AA7, .notify),
                        // CGM Feature: E2E-CRC supported; capillary whole blood, finger.
                        .init(0x2AA8, .read, value: E2ECRC.appending(to: [0x00, 0x10, 0x00, 0x59])),
                        .init(0x2AA9, .read, value: E2ECRC.appending(to: [UInt8(now & 0xFF), UInt8(now >> 8), 0, 0, 0])),
                        .init(0x2AAA, [.read, .write], value: startTime.encoded(withCRC: true)), .init(0x2A52, [.write, .indicate]),
                    ]),
            ],
            clock: clock)
        server.serve(on: peripheral)
        return peripheral
    }

    /// Records a session with the sensor holding `tenths` to the btsnoop file at `url`, as
    /// `import --ble --record` records a live one.
    package static func record(tenths: [Int], to url: URL) throws {
        let clock = SimulatedClock(connected)
        let recorder = try RecordingATTBearer(recording: sensor(tenths: tenths, clock: clock), to: url, clock: { clock.now })
        _ = try BLESession.run(ATTClient(bearer: recorder), mode: .conversation, limits: .replay, context: .fresh)
        if let failure = recorder.recordingError { throw failure }
    }
}
