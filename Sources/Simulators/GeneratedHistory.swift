import Drivers
import Foundation
import TransportReplay

/// A generated 14-day CGM history whose shape is known: a daily curve with meal rises, night
/// hypos below 54 and 70, evening hypers above 180 and 250, a 2-hour sensor gap and a short
/// 20-minute one. Recorded as a Dexcom G4 receiver session (usbmon pcap) for `replay`, so that
/// it reaches the store through the real driver and importer.
package enum GeneratedHistory {
    /// The glucose (mg/dL, 40…400) of reading `index` (every 5 minutes from local midnight of
    /// the first Day), or nil in a gap.
    package static func glucose(at index: Int) -> Int? {
        let day = index / 288
        let slot = index % 288
        let hour = Double(slot) / 12
        if day == 3, (132..<156).contains(slot) { return nil }  // 11:00–13:00: a sensor change
        if day == 9, (200..<204).contains(slot) { return nil }  // 16:40–17:00: a short dropout
        var value = 135 + 25 * sin((hour - 9) / 24 * 2 * Double.pi)
        for meal in [7.5, 12.5, 19.0] where hour > meal && hour < meal + 3 {
            value += 70 * sin((hour - meal) / 3 * Double.pi)
        }
        // Night hypos: below 54 every fourth Day, between 54 and 70 on some others.
        if day % 4 == 1 || day % 3 == 2, hour > 2, hour < 3.5 {
            let depth = day % 4 == 1 ? 64.0 : 48.0
            value -= depth * sin((hour - 2) / 1.5 * Double.pi)
        }
        // Evening hypers above 250 on two Days.
        if day == 5 || day == 11, hour > 19, hour < 23 {
            value += 130 * sin((hour - 19) / 4 * Double.pi)
        }
        value += 6 * sin(Double(index) * 1.7)
        return Int(max(40, min(400, value.rounded())))
    }

    /// A receiver holding `days` Days of readings, one every 5 minutes, its system clock a minute
    /// past the last; `hostClock` is read when a reply is delivered, so it places them.
    package static func receiver(days: Int, serial: String, hostClock: @escaping () -> Date) -> DexcomReceiverSimulator {
        let count = days * 288
        let lastSystem: UInt32 = 560_000_000
        let readings = (0..<count).compactMap { i -> (systemSeconds: UInt32, glucose: UInt16, trendByte: UInt8)? in
            guard let value = glucose(at: i) else { return nil }
            let previous = i > 0 ? glucose(at: i - 1) ?? value : value
            let rate = Double(value - previous) / 5
            let trend: UInt8 = rate > 2 ? 2 : rate > 1 ? 3 : rate < -2 ? 6 : rate < -1 ? 5 : 4
            return (lastSystem - UInt32(count - 1 - i) * 300, UInt16(value), 0x10 | trend)
        }
        let pages = DexcomPageBuilder.egvPages(readings, displayOffset: -25_200)
        return DexcomReceiverSimulator(
            pages: [
                DexcomPartition.manufacturingData.rawValue: [0: DexcomPageBuilder.manufacturingPage(serial: serial, systemSeconds: 1)],
                DexcomPartition.egvData.rawValue: pages,
            ],
            systemTime: lastSystem + 60, displayTimeOffset: -25_200, hostClock: hostClock)
    }

    /// Records a receiver holding `days` Days of readings to `output`, the last reading at
    /// `lastReading` (UTC) by the simulated host clock.
    package static func record(days: Int = 14, endingAt lastReading: Date, to output: URL, serial: String = "SM14DAYS1") throws {
        var tick = 0.0
        let hostAtLast = lastReading.addingTimeInterval(60)
        let clock = { () -> Date in
            tick += 0.001
            return hostAtLast.addingTimeInterval(tick)
        }
        let receiver = receiver(days: days, serial: serial, hostClock: clock)
        let recorder = try RecordingUSBTransport(recording: receiver, to: output, clock: clock)
        _ = try DexcomDriver.download(over: recorder, context: .fresh)
        try recorder.finish()
    }
}
