import CaptureBluetooth
import Drivers
import Foundation
import Transport
import TransportReplay

/// The heart-rate band capture shipped as `fixtures/ble/hr-40min-walk.btsnoop`: a simulated band
/// (Device Information, Heart Rate) notifying once a second for 50 minutes — 5 minutes standing
/// (68–72 bpm), a 40-minute brisk walk (116–128 bpm), 5 minutes cooling down (about 86 down to
/// 78 bpm) — read by glucobridge's own Bluetooth drivers and recorded as `import --ble --record`
/// records a live session. All bytes are made here (synthetic data, no device was involved).
///
/// Each measurement has contact detected and one RR-interval (60 / bpm s, in 1/1024 s); every
/// tenth also carries the energy expended so far (kJ).
package enum HeartRateBandDemo {
    /// When the band connects: 2024-05-02T05:55:00Z (22:55 on May 1 in Los Angeles).
    package static let connected = Date(timeIntervalSince1970: 1_714_629_300)
    /// The first minute of the walk: 2024-05-02T06:00:00Z.
    package static let walkStart = connected.addingTimeInterval(300)
    package static let walkMinutes = 40
    /// Notifications: one a second from 1 s after connecting.
    package static let seconds = 3000

    package static let peer = BLEPeer(address: BluetoothAddress("C0:FF:EE:00:00:01")!, addressType: .random, name: "SimBand HR")
    package static let manufacturer = "glucobridge simulator"
    package static let model = "HR band"
    package static let serial = "SIM-HR-0001"

    /// The heart rate `second` seconds after connecting.
    package static func beatsPerMinute(at second: Int) -> Int {
        switch second {
        case ..<300: return 68 + second % 5
        case ..<(300 + walkMinutes * 60): return 122 + Int((6 * sin(2 * Double.pi * Double(second) / 300)).rounded())
        default: return 86 - (second - 2700) / 40
        }
    }

    /// The Heart Rate Measurement value sent `second` seconds after connecting, with the energy
    /// expended so far in kJ.
    package static func measurement(at second: Int, energy: Int) -> [UInt8] {
        let bpm = beatsPerMinute(at: second)
        let rr = UInt16((60.0 / Double(bpm) * 1024).rounded())
        var flags: UInt8 = 0x06 | 0x10
        var value: [UInt8] = []
        if second % 10 == 0 {
            flags |= 0x08
            value += [UInt8(energy & 0xFF), UInt8(energy >> 8)]
        }
        return [flags, UInt8(bpm)] + value + [UInt8(rr & 0xFF), UInt8(rr >> 8)]
    }

    /// The simulated band, its notifications scheduled on `clock`, one a second for `seconds`.
    package static func band(clock: SimulatedClock, seconds: Int = seconds) -> SimulatedPeripheral {
        band(clock: clock, notifying: 1...max(1, seconds))
    }

    /// The band notifying only `notifying` (seconds after ``connected``): one of the sessions of
    /// a band the host lost and found again. Its energy total counts from second 1 all the same,
    /// as the band kept counting while it was not connected.
    package static func band(clock: SimulatedClock, notifying: ClosedRange<Int>) -> SimulatedPeripheral {
        var schedule: [SimulatedPeripheral.Emission] = []
        var energy = 0.0
        for second in 1...max(1, notifying.upperBound) {
            energy += beatsPerMinute(at: second) >= 100 ? 0.35 : 0.1
            guard notifying.contains(second) else { continue }
            schedule.append(
                SimulatedPeripheral.Emission(
                    at: connected.addingTimeInterval(TimeInterval(second)), 0x2A37, measurement(at: second, energy: Int(energy))))
        }
        func text(_ string: String) -> [UInt8] { Array(string.utf8) }
        return SimulatedPeripheral(
            peer: peer,
            services: [
                .init(0x1800, [.init(0x2A00, .read, value: text(peer.name!))]),
                .init(
                    0x180A,
                    [
                        .init(0x2A29, .read, value: text(manufacturer)), .init(0x2A24, .read, value: text(model)),
                        .init(0x2A25, .read, value: text(serial)),
                    ]),
                .init(0x180D, [.init(0x2A37, .notify), .init(0x2A38, .read, value: [0x01]), .init(0x2A39, .write)]),
            ],
            schedule: schedule, clock: clock)
    }

    /// Records the demo capture to `url`: the band read by `BLESession` through the recorder.
    package static func record(to url: URL) throws {
        try record(to: url, notifying: 1...seconds)
    }

    /// Records one session of the band to `url`: connected just after second
    /// `notifying.lowerBound - 1`, it notifies `notifying` and disconnects.
    package static func record(to url: URL, notifying: ClosedRange<Int>) throws {
        let clock = SimulatedClock(connected.addingTimeInterval(TimeInterval(max(1, notifying.lowerBound) - 1)))
        let recorder = try RecordingATTBearer(recording: band(clock: clock, notifying: notifying), to: url, clock: { clock.now })
        _ = try BLESession.run(ATTClient(bearer: recorder), mode: .conversation, limits: .replay, context: .fresh)
        if let failure = recorder.recordingError { throw failure }
    }
}
