import Foundation
import Model

/// Generated activity sensor streams whose right answer is known: steady values over chosen
/// minutes, the way a band, a running pod or a bike sensor would notify them.
public enum ActivityStreams {
    /// The instants of one sample every `every` seconds within each of `minutes` (minute offsets
    /// from `start`): a minute without samples is a gap.
    public static func times(from start: Date, minutes: [Int], every: Double) -> [Date] {
        minutes.flatMap { minute in
            stride(from: 0.0, to: 60.0, by: every).map { start.addingTimeInterval(Double(minute) * 60 + $0) }
        }
    }

    /// A heart-rate band with skin contact, one beat rate per second.
    public static func band(from start: Date, minutes: [Int], bpm: Double) -> [ActivitySample] {
        times(from: start, minutes: minutes, every: 1).map {
            ActivitySample(time: $0, sensor: .heartRateBand, heartRate: bpm, skinContact: true)
        }
    }

    /// A running pod every 2 s: steady cadence and speed, its distance total growing with the speed.
    public static func pod(
        from start: Date, minutes: [Int], cadence: Double, speed: Double, gait: Gait, startDistance: Double = 0
    ) -> [ActivitySample] {
        var distance = startDistance
        return times(from: start, minutes: minutes, every: 2).map { time in
            distance += speed * 2
            return ActivitySample(
                time: time, sensor: .runningPod, cadence: cadence, speed: speed, totalDistance: distance, gait: gait)
        }
    }

    /// A bike speed and cadence sensor every 2 s.
    public static func bike(from start: Date, minutes: [Int], rpm: Double, speed: Double) -> [ActivitySample] {
        times(from: start, minutes: minutes, every: 2).map {
            ActivitySample(time: $0, sensor: .cycling, cadence: rpm, speed: speed)
        }
    }
}
