import Foundation
import Model

/// Activity minutes and what was left out making them.
package struct ResampledActivity: Sendable, Equatable {
    /// One entry per UTC minute that holds at least one usable value, ascending.
    package var minutes: [ActivityMinute]
    /// Values left out, counted by reason (see ``ActivityResampler``).
    package var events: [ImportEvent]
}

/// Turns activity samples into one-minute epochs.
///
/// - A sample belongs to the UTC minute holding its instant (`⌊t / 60 s⌋`); samples may come
///   in any order and from several sensors of one device.
/// - Heart rate, cadence and speed are the means of the minute's usable values. A heart rate is
///   usable with skin contact (or when the sensor does not report contact) and within
///   30–220 bpm; cadence, speed and running totals must be numbers ≥ 0.
///   Cadence from a ``ActivitySensor/cycling`` sensor is crank cadence, any other is step cadence.
/// - Distance and energy are running totals on the sensors: a minute gets the sum of the
///   increases between consecutive samples of the same sensor ending in that minute. A total
///   that falls restarted from zero, and counts from zero. The first total of each sensor only
///   sets the base.
/// - The gait is the one most of the minute's samples reported (a tie: walking).
/// - **Gaps**: a minute without a usable value is absent from the result; nothing is
///   interpolated or carried forward. The session builder treats an absent minute as inactive.
/// - Values left out are counted in ``ResampledActivity/events``: `heart-rate-without-contact`,
///   `heart-rate-out-of-range`, `invalid-cadence`, `invalid-speed`, `invalid-distance`,
///   `invalid-energy`, and whole samples timed outside years 0001–9999: `invalid-time`.
package enum ActivityResampler {
    /// Heart rates outside this range are sensor artefacts.
    package static let plausibleHeartRate = 30.0...220.0

    package static func minutes(from samples: [ActivitySample]) -> ResampledActivity {
        var events: [String: Int] = [:]
        // Timed samples in time order (stable), each with its minute; a time outside years
        // 0001–9999 (or NaN, which would also break the sort) leaves its sample out.
        let ordered = samples.enumerated().compactMap { offset, sample -> (offset: Int, minute: Int64, sample: ActivitySample)? in
            guard let minute = ActivityMinute.number(of: sample.time) else {
                events["invalid-time", default: 0] += 1
                return nil
            }
            return (offset, minute, sample)
        }.sorted { a, b in
            a.sample.time == b.sample.time ? a.offset < b.offset : a.sample.time < b.sample.time
        }
        var minutes: [ActivityMinute] = []
        var lastTotals: [ActivitySensor: (distance: Double?, energy: Double?)] = [:]
        var current: Accumulator?

        for (_, minute, sample) in ordered {
            if let open = current, open.minute != minute {
                if let finished = open.result() { minutes.append(finished) }
                current = nil
            }
            var accumulator = current ?? Accumulator(minute: minute)
            var used = false

            if let rate = sample.heartRate {
                if sample.skinContact == false {
                    events["heart-rate-without-contact", default: 0] += 1
                } else if !rate.isFinite || !plausibleHeartRate.contains(rate) {
                    events["heart-rate-out-of-range", default: 0] += 1
                } else {
                    accumulator.heartRate.add(rate)
                    used = true
                }
            }
            if let cadence = sample.cadence {
                if usable(cadence) {
                    if sample.sensor == .cycling { accumulator.crankCadence.add(cadence) } else { accumulator.stepCadence.add(cadence) }
                    used = true
                } else {
                    events["invalid-cadence", default: 0] += 1
                }
            }
            if let speed = sample.speed {
                if usable(speed) {
                    accumulator.speed.add(speed)
                    used = true
                } else {
                    events["invalid-speed", default: 0] += 1
                }
            }
            var totals = lastTotals[sample.sensor] ?? (nil, nil)
            if let total = sample.totalDistance {
                if usable(total) {
                    if let last = totals.distance { accumulator.distance = (accumulator.distance ?? 0) + increase(from: last, to: total) }
                    totals.distance = total
                    used = true
                } else {
                    events["invalid-distance", default: 0] += 1
                }
            }
            if let total = sample.totalEnergy {
                if usable(total) {
                    if let last = totals.energy { accumulator.energy = (accumulator.energy ?? 0) + increase(from: last, to: total) }
                    totals.energy = total
                    used = true
                } else {
                    events["invalid-energy", default: 0] += 1
                }
            }
            lastTotals[sample.sensor] = totals

            if used {
                accumulator.samples += 1
                accumulator.sensors.insert(sample.sensor)
                switch sample.gait {
                case .walking: accumulator.walking += 1
                case .running: accumulator.running += 1
                case nil: break
                }
            }
            current = accumulator
        }
        if let open = current, let finished = open.result() { minutes.append(finished) }
        return ResampledActivity(
            minutes: minutes,
            events: events.sorted { $0.key < $1.key }.map { ImportEvent(name: $0.key, count: $0.value) })
    }

    private static func usable(_ value: Double) -> Bool { value.isFinite && value >= 0 }

    /// The increase of a running total; a total below the last one restarted from zero.
    private static func increase(from last: Double, to total: Double) -> Double {
        total >= last ? total - last : total
    }

    private struct Mean {
        var sum = 0.0
        var count = 0
        mutating func add(_ value: Double) {
            sum += value
            count += 1
        }
        var value: Double? { count == 0 ? nil : sum / Double(count) }
    }

    private struct Accumulator {
        let minute: Int64
        var heartRate = Mean()
        var stepCadence = Mean()
        var crankCadence = Mean()
        var speed = Mean()
        var distance: Double?
        var energy: Double?
        var walking = 0
        var running = 0
        var sensors: Set<ActivitySensor> = []
        var samples = 0

        init(minute: Int64) { self.minute = minute }

        func result() -> ActivityMinute? {
            guard samples > 0 else { return nil }
            let gait: Gait? = walking + running == 0 ? nil : (running > walking ? .running : .walking)
            return ActivityMinute(
                start: Date(timeIntervalSince1970: TimeInterval(minute * 60)), heartRate: heartRate.value,
                stepCadence: stepCadence.value, crankCadence: crankCadence.value, speed: speed.value,
                distance: distance, energy: energy, gait: gait, sensors: sensors, sampleCount: samples)
        }
    }
}
