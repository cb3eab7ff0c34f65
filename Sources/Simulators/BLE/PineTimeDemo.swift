import Drivers
import Foundation
import Model
import Transport

/// A PineTime running InfiniTime in software, on `SimulatedPeripheral`: Device Information (its
/// firmware revision), the Current Time Service (read and write, the watch's wall clock in its
/// zone), Heart Rate (read and notify, the value `{0, bpm}` as InfiniTime sends it) and the
/// Motion service (step count and raw motion, read and notify). Its step counter holds the steps
/// since the watch's midnight; a restart of the watch sets it back to 0.
package final class PineTimeSimulator {
    package var peer: BLEPeer
    /// The watch's zone: its wall clock is the true time there, plus `clockError`.
    package var zone: TimeZone
    package var clockError: TimeInterval = 0
    /// The step count when the central connects.
    package var steps: UInt32
    /// The heart rate a read gives (0: not measuring).
    package var beatsPerMinute: UInt8
    /// Step count notifications: seconds after connecting, and the count.
    package var stepNotifications: [(after: TimeInterval, steps: UInt32)] = []
    /// Heart rate notifications: seconds after connecting, and the bpm.
    package var heartRateNotifications: [(after: TimeInterval, bpm: UInt8)] = []

    package init(peer: BLEPeer = PineTimeDemo.peer, zone: TimeZone, steps: UInt32, beatsPerMinute: UInt8) {
        self.peer = peer
        self.zone = zone
        self.steps = steps
        self.beatsPerMinute = beatsPerMinute
    }

    /// The Current Time value at `instant` (true time), on the watch's clock.
    package func currentTime(at instant: Date) -> CurrentTime {
        let watch = instant.addingTimeInterval(clockError)
        let wall = Int64((watch.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: watch))).rounded(.down))
        let days = CivilDate.floorDiv(wall, 86_400)
        let (year, month, day) = CivilDate.civil(fromDays: days)
        let second = Int(wall - days * 86_400)
        let dateTime = GATTDateTime(year: year, month: month, day: day, hours: second / 3600, minutes: second / 60 % 60, seconds: second % 60)
        let weekday = Int((days + 3) % 7 + 7) % 7 + 1
        return CurrentTime(dateTime: dateTime, dayOfWeek: weekday)
    }

    /// The watch connected at `connected` (true time), its notifications scheduled on `clock`.
    package func peripheral(connected: Date, clock: SimulatedClock) -> SimulatedPeripheral {
        var schedule: [(TimeInterval, SimulatedPeripheral.Emission)] = []
        for (after, count) in stepNotifications {
            schedule.append((after, .init(at: connected.addingTimeInterval(after), uuid: InfiniTimeUUID.stepCount, Self.bytes(count))))
        }
        for (after, bpm) in heartRateNotifications {
            schedule.append((after, .init(at: connected.addingTimeInterval(after), 0x2A37, [0x00, bpm])))
        }
        return SimulatedPeripheral(
            peer: peer,
            services: [
                .init(0x1800, [.init(0x2A00, .read, value: Array((peer.name ?? "").utf8))]),
                .init(0x180A, [.init(0x2A29, .read, value: Array("PINE64".utf8)), .init(0x2A26, .read, value: Array("1.14.0".utf8))]),
                .init(0x1805, [.init(0x2A2B, [.read, .write], value: currentTime(at: connected).bytes)]),
                .init(0x180D, [.init(0x2A37, [.read, .notify], value: [0x00, beatsPerMinute])]),
                .init(
                    uuid: InfiniTimeUUID.motionService,
                    [
                        .init(uuid: InfiniTimeUUID.stepCount, [.read, .notify], value: Self.bytes(steps)),
                        .init(uuid: PineTimeDemo.rawMotion, [.read, .notify], value: [0x10, 0x00, 0xF0, 0xFF, 0x00, 0x04]),
                    ]),
            ],
            schedule: schedule.sorted { $0.0 < $1.0 }.map(\.1), clock: clock)
    }

    static func bytes(_ count: UInt32) -> [UInt8] {
        [UInt8(count & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 24)]
    }
}

/// The PineTime the tests, the conformance kit and the lab serve (synthetic values, no watch was
/// involved).
package enum PineTimeDemo {
    package static let peer = BLEPeer(address: BluetoothAddress("C0:FF:EE:00:00:34")!, addressType: .random, name: "InfiniTime")
    /// Raw motion (x, y, z in 1/1024 g), which glucobridge does not read.
    package static let rawMotion = BluetoothUUID("00030002-78fc-48fe-8e23-433b3a1942d0")!
    package static let zone = TimeZone(identifier: "Europe/Berlin")!
    /// 2024-05-01T12:00:05Z, 14:00:05 on the watch.
    package static let connected = Date(timeIntervalSince1970: 1_714_564_805)
    /// The count when the demo connects.
    package static let stepsAtConnect: UInt32 = 5230

    /// A walk read live: the count at connecting, then a step notification every 20 s from 25 s
    /// (at :10, :30 and :50 of each minute, 9 steps each) and a heart-rate notification every 20 s
    /// from 15 s, `notifications` of each.
    package static func watch(notifications: Int, steps: UInt32 = stepsAtConnect, zone: TimeZone = zone) -> PineTimeSimulator {
        let watch = PineTimeSimulator(zone: zone, steps: steps, beatsPerMinute: 96)
        for index in 0..<notifications {
            let gained = UInt32(9 * (index + 1))
            watch.stepNotifications.append((after: TimeInterval(25 + 20 * index), steps: steps + gained))
            watch.heartRateNotifications.append((after: TimeInterval(15 + 20 * index), bpm: UInt8(98 + index % 5)))
        }
        return watch
    }
}
