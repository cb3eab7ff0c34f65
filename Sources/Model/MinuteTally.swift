import Foundation

/// What the samples one session saw of a minute add up to: sums and counts rather than means,
/// and each sensor's running totals at both ends, so that the parts of a minute seen by two
/// sessions (a Bluetooth session that ended inside the minute, and the next one) combine into
/// what one session seeing every sample would have made of it (``merged(_:)``).
public struct MinuteTally: Sendable, Equatable {
    /// A sum of values and how many were added.
    public struct Sum: Sendable, Equatable {
        public var total = 0.0
        public var count = 0

        public init(total: Double = 0, count: Int = 0) {
            self.total = total
            self.count = count
        }

        public mutating func add(_ value: Double) {
            total += value
            count += 1
        }

        /// The mean; nil when nothing was added.
        public var mean: Double? { count == 0 ? nil : total / Double(count) }
    }

    /// A sensor's running total (distance or energy) as the minute's samples reported it.
    public struct RunningTotal: Sendable, Equatable, Codable {
        /// The first and last total read in the minute.
        public var first: Double
        public var last: Double
        /// The first total was the first the session read from the sensor: it only set the base,
        /// and the increase from the total before it (another session's) is not counted yet.
        public var firstIsBase: Bool

        public init(first: Double, last: Double, firstIsBase: Bool) {
            self.first = first
            self.last = last
            self.firstIsBase = firstIsBase
        }
    }

    /// One sensor's running totals in the minute.
    public struct SensorTotals: Sendable, Equatable, Codable {
        public var distance: RunningTotal?
        public var energy: RunningTotal?

        public init(distance: RunningTotal? = nil, energy: RunningTotal? = nil) {
            self.distance = distance
            self.energy = energy
        }
    }

    /// The instants of the first and last sample used.
    public var firstSample: Date
    public var lastSample: Date
    public var heartRate = Sum()
    public var stepCadence = Sum()
    public var crankCadence = Sum()
    public var speed = Sum()
    /// The increases of the running totals counted in the minute, over all sensors.
    public var distance: Double?
    public var energy: Double?
    /// Samples that reported walking, and running.
    public var walking = 0
    public var running = 0
    public var sensors: Set<ActivitySensor> = []
    /// Samples used.
    public var samples = 0
    public var totals: [ActivitySensor: SensorTotals] = [:]
    /// The device's own kind and intensity: of two samples in the minute, the later one's.
    public var device: DeviceMinuteValues?

    public init(firstSample: Date, lastSample: Date) {
        self.firstSample = firstSample
        self.lastSample = lastSample
    }

    /// The increase of a running total; a total below the last one restarted from zero.
    public static func increase(from last: Double, to total: Double) -> Double {
        total >= last ? total - last : total
    }

    /// The minute starting at `start` these samples make: the means, the sums, and the gait most
    /// samples reported (a tie: walking); nil when no sample was used.
    public func minute(start: Date) -> ActivityMinute? {
        guard samples > 0 else { return nil }
        let gait: Gait? = walking + running == 0 ? nil : (running > walking ? .running : .walking)
        var minute = ActivityMinute(
            start: start, heartRate: heartRate.mean, stepCadence: stepCadence.mean, crankCadence: crankCadence.mean,
            speed: speed.mean, distance: distance, energy: energy, gait: gait, sensors: sensors, sampleCount: samples,
            device: device)
        minute.tally = self
        return minute
    }

    /// The parts of one minute seen by sessions that do not overlap in time, combined in time
    /// order: sums, counts and sensors added, the later part's device values kept, and for a sensor whose total a later part only took
    /// as its base, the increase from the earlier part's last total counted, as one session
    /// reading both parts would have counted it. Nil for no parts.
    public static func merged(_ parts: [MinuteTally]) -> MinuteTally? {
        let ordered = parts.sorted { ($0.firstSample, $0.lastSample) < ($1.firstSample, $1.lastSample) }
        guard var combined = ordered.first else { return nil }
        for part in ordered.dropFirst() {
            for (sensor, totals) in part.totals.sorted(by: { $0.key < $1.key }) {
                let before = combined.totals[sensor]
                if let later = totals.distance, later.firstIsBase, let earlier = before?.distance {
                    combined.distance = (combined.distance ?? 0) + increase(from: earlier.last, to: later.first)
                }
                if let later = totals.energy, later.firstIsBase, let earlier = before?.energy {
                    combined.energy = (combined.energy ?? 0) + increase(from: earlier.last, to: later.first)
                }
                combined.totals[sensor] = SensorTotals(
                    distance: joined(before?.distance, totals.distance), energy: joined(before?.energy, totals.energy))
            }
            if let distance = part.distance { combined.distance = (combined.distance ?? 0) + distance }
            if let energy = part.energy { combined.energy = (combined.energy ?? 0) + energy }
            combined.heartRate = Sum(total: combined.heartRate.total + part.heartRate.total, count: combined.heartRate.count + part.heartRate.count)
            combined.stepCadence = Sum(
                total: combined.stepCadence.total + part.stepCadence.total, count: combined.stepCadence.count + part.stepCadence.count)
            combined.crankCadence = Sum(
                total: combined.crankCadence.total + part.crankCadence.total, count: combined.crankCadence.count + part.crankCadence.count)
            combined.speed = Sum(total: combined.speed.total + part.speed.total, count: combined.speed.count + part.speed.count)
            combined.walking += part.walking
            combined.running += part.running
            combined.sensors.formUnion(part.sensors)
            combined.samples += part.samples
            if let device = part.device { combined.device = (combined.device ?? DeviceMinuteValues()).updated(by: device) }
            combined.lastSample = max(combined.lastSample, part.lastSample)
        }
        return combined
    }

    /// An earlier and a later part's totals of one sensor as one: the earlier's first, the later's last.
    private static func joined(_ earlier: RunningTotal?, _ later: RunningTotal?) -> RunningTotal? {
        guard let earlier else { return later }
        guard let later else { return earlier }
        return RunningTotal(first: earlier.first, last: later.last, firstIsBase: earlier.firstIsBase)
    }
}
