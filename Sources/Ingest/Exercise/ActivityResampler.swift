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
            var accumulator = current ?? Accumulator(minute: minute, time: sample.time)
            var tally = accumulator.tally
            var used = false

            if let rate = sample.heartRate {
                if sample.skinContact == false {
                    events["heart-rate-without-contact", default: 0] += 1
                } else if !rate.isFinite || !plausibleHeartRate.contains(rate) {
                    events["heart-rate-out-of-range", default: 0] += 1
                } else {
                    tally.heartRate.add(rate)
                    used = true
                }
            }
            if let cadence = sample.cadence {
                if usable(cadence) {
                    if sample.sensor == .cycling { tally.crankCadence.add(cadence) } else { tally.stepCadence.add(cadence) }
                    used = true
                } else {
                    events["invalid-cadence", default: 0] += 1
                }
            }
            if let speed = sample.speed {
                if usable(speed) {
                    tally.speed.add(speed)
                    used = true
                } else {
                    events["invalid-speed", default: 0] += 1
                }
            }
            var totals = lastTotals[sample.sensor] ?? (nil, nil)
            var ends = tally.totals[sample.sensor] ?? MinuteTally.SensorTotals()
            if let total = sample.totalDistance {
                if usable(total) {
                    if let last = totals.distance { tally.distance = (tally.distance ?? 0) + MinuteTally.increase(from: last, to: total) }
                    ends.distance = Self.extend(ends.distance, with: total, isBase: totals.distance == nil)
                    totals.distance = total
                    used = true
                } else {
                    events["invalid-distance", default: 0] += 1
                }
            }
            if let total = sample.totalEnergy {
                if usable(total) {
                    if let last = totals.energy { tally.energy = (tally.energy ?? 0) + MinuteTally.increase(from: last, to: total) }
                    ends.energy = Self.extend(ends.energy, with: total, isBase: totals.energy == nil)
                    totals.energy = total
                    used = true
                } else {
                    events["invalid-energy", default: 0] += 1
                }
            }
            lastTotals[sample.sensor] = totals
            if ends.distance != nil || ends.energy != nil { tally.totals[sample.sensor] = ends }

            if let device = sample.device {
                tally.device = (tally.device ?? DeviceMinuteValues()).updated(by: device)
                used = true
            }
            if used {
                if tally.samples == 0 { tally.firstSample = sample.time }
                tally.lastSample = sample.time
                tally.samples += 1
                tally.sensors.insert(sample.sensor)
                switch sample.gait {
                case .walking: tally.walking += 1
                case .running: tally.running += 1
                case nil: break
                }
            }
            accumulator.tally = tally
            current = accumulator
        }
        if let open = current, let finished = open.result() { minutes.append(finished) }
        return ResampledActivity(
            minutes: minutes,
            events: events.sorted { $0.key < $1.key }.map { ImportEvent(name: $0.key, count: $0.value) })
    }

    private static func usable(_ value: Double) -> Bool { value.isFinite && value >= 0 }

    /// A running total of the minute with `total` read after it (`isBase`: the first the session read).
    private static func extend(_ ends: MinuteTally.RunningTotal?, with total: Double, isBase: Bool) -> MinuteTally.RunningTotal {
        guard var ends else { return MinuteTally.RunningTotal(first: total, last: total, firstIsBase: isBase) }
        ends.last = total
        return ends
    }

    /// The minute being summed, and what its samples add up to.
    private struct Accumulator {
        let minute: Int64
        var tally: MinuteTally

        init(minute: Int64, time: Date) {
            self.minute = minute
            tally = MinuteTally(firstSample: time, lastSample: time)
        }

        func result() -> ActivityMinute? {
            tally.minute(start: Date(timeIntervalSince1970: TimeInterval(minute * 60)))
        }
    }
}
