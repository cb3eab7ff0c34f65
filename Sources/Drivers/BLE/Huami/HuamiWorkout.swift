import Foundation
import Model

/// One workout a Huami band logged, as its sports summary (fetch type 0x05) gives it. The
/// layout is versioned: the first u16; summaries from version 512 on (Amazfit Bip S and later)
/// put steps, active time, calories and distance first, earlier ones (Bip, 259) distance and
/// altitudes first [Gadgetbridge FetchSportsSummaryOperation.java `parseSummary` and
/// HuamiActivitySummaryParser.java; amazfit-pyclient fetch/fetch_sports].
///
/// The summary's own start and end (u32 at bytes 4 and 8) are Unix seconds; Gadgetbridge found
/// them off across DST changes, so the fetch answer's start time, which carries the band's zone,
/// dates the workout, and the summary gives only its length (`end − start`).
public struct HuamiWorkoutSummary: Sendable, Equatable {
    public var version: UInt16
    /// The band's sport code (1 outdoor running, 2 treadmill, 3 walking, 4 cycling, 6 pool
    /// swimming, 7 open water, 8 indoor cycling, 15 outdoor hiking, 0x17 rowing machine, …).
    public var sport: UInt16
    public var startSeconds: UInt32
    public var endSeconds: UInt32
    public var steps: Int32
    public var activeSeconds: Int32
    /// kcal.
    public var calories: Float
    /// Metres.
    public var distance: Float
    /// Beats per minute; 0 when the band measured none.
    public var averageHeartRate: UInt16

    public init(
        version: UInt16, sport: UInt16, startSeconds: UInt32, endSeconds: UInt32, steps: Int32, activeSeconds: Int32, calories: Float,
        distance: Float, averageHeartRate: UInt16
    ) {
        self.version = version
        self.sport = sport
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.steps = steps
        self.activeSeconds = activeSeconds
        self.calories = calories
        self.distance = distance
        self.averageHeartRate = averageHeartRate
    }

    static let what = "Huami sports summary"

    /// Where each field sits for a summary of `version`.
    struct Layout {
        var steps: Int
        var activeSeconds: Int
        var calories: Int
        var distance: Int
        var averageHeartRate: Int

        init(version: UInt16) {
            if version >= 512 {
                // 519 moves the block to 0x8C (taken to keep its order there); 516 inserts four
                // bytes before it.
                let base = version == 519 ? 0x8C : version == 516 ? 28 : 24
                self.init(
                    steps: base, activeSeconds: base + 4, calories: base + 24, distance: base + 28, averageHeartRate: base + 108)
            } else {
                self.init(steps: 60, activeSeconds: 64, calories: 68, distance: 24, averageHeartRate: 120)
            }
        }

        init(steps: Int, activeSeconds: Int, calories: Int, distance: Int, averageHeartRate: Int) {
            self.steps = steps
            self.activeSeconds = activeSeconds
            self.calories = calories
            self.distance = distance
            self.averageHeartRate = averageHeartRate
        }

        /// The bytes a summary must hold: up to the end of its last field used.
        var length: Int { max(steps + 4, activeSeconds + 4, calories + 4, distance + 4, averageHeartRate + 2) }
    }

    /// The summary in `bytes` (one fetch's data, the packet counters taken out).
    public static func decode(_ bytes: [UInt8]) throws(HuamiError) -> HuamiWorkoutSummary {
        guard bytes.count >= 12 else {
            throw .shortValue(characteristic: what, field: "header (version, sport, start, end)", offset: 0, needed: 12, available: bytes.count)
        }
        let version = bytes.u16le(at: 0)
        let layout = Layout(version: version)
        guard bytes.count >= layout.length else {
            throw .shortValue(
                characteristic: "\(what) version \(version)", field: "fields", offset: bytes.count, needed: layout.length - bytes.count,
                available: 0)
        }
        let summary = HuamiWorkoutSummary(
            version: version, sport: bytes.u16le(at: 2), startSeconds: bytes.u32le(at: 4), endSeconds: bytes.u32le(at: 8),
            steps: bytes.i32le(at: layout.steps), activeSeconds: bytes.i32le(at: layout.activeSeconds),
            calories: Float(bitPattern: bytes.u32le(at: layout.calories)), distance: Float(bitPattern: bytes.u32le(at: layout.distance)),
            averageHeartRate: bytes.u16le(at: layout.averageHeartRate))
        func invalid(_ field: String, _ offset: Int, _ reason: String) -> HuamiError {
            .invalidField(characteristic: "\(what) version \(version)", field: field, offset: offset, reason: reason)
        }
        guard summary.endSeconds >= summary.startSeconds, summary.endSeconds - summary.startSeconds <= 7 * 86_400 else {
            throw invalid("end", 8, "is \(summary.endSeconds), not within a week after the start \(summary.startSeconds)")
        }
        guard summary.distance.isFinite, summary.distance >= 0, summary.distance < 2_000_000 else {
            throw invalid("distance", layout.distance, "is \(summary.distance) m")
        }
        guard summary.calories.isFinite, summary.calories >= 0, summary.calories < 50_000 else {
            throw invalid("calories", layout.calories, "is \(summary.calories) kcal")
        }
        guard summary.averageHeartRate < 300 else {
            throw invalid("average heart rate", layout.averageHeartRate, "is \(summary.averageHeartRate) bpm")
        }
        return summary
    }

    /// The bytes a band sends for this summary (the simulated band), in its version's layout;
    /// fields glucobridge does not read are 0.
    public var bytes: [UInt8] {
        let layout = Layout(version: version)
        var bytes = [UInt8](repeating: 0, count: layout.length)
        func put(_ field: [UInt8], _ at: Int) { bytes.replaceSubrange(at..<(at + field.count), with: field) }
        put(version.littleEndianBytes + sport.littleEndianBytes + startSeconds.littleEndianBytes + endSeconds.littleEndianBytes, 0)
        put(steps.littleEndianBytes, layout.steps)
        put(activeSeconds.littleEndianBytes, layout.activeSeconds)
        put(calories.bitPattern.littleEndianBytes, layout.calories)
        put(distance.bitPattern.littleEndianBytes, layout.distance)
        put(averageHeartRate.littleEndianBytes, layout.averageHeartRate)
        return bytes
    }

    /// Whether `data` is a sports summary of a workout that started at `start` (the fetch
    /// answer's time): it decodes, its version is one bands send (256–1023), and its own start is
    /// that time within a minute (as UTC, or as the band's wall time counted as UTC). Used when
    /// the fetch type was not seen (listening to another program's capture).
    public static func isSummary(_ data: [UInt8], startingAt start: HuamiTime) -> Bool {
        guard let summary = try? decode(data), (256...1023).contains(summary.version) else { return false }
        let utc = Int64(start.instant.timeIntervalSince1970)
        let wall = utc + Int64(start.quarterHours) * 900
        return abs(Int64(summary.startSeconds) - utc) <= 60 || abs(Int64(summary.startSeconds) - wall) <= 60
    }

    /// The Exercise log's name for the band's sport code.
    public var kind: ExerciseKind {
        switch sport {
        case 1, 2: .running
        case 3: .walking
        case 4, 8: .cycling
        case 6, 7: .swimming
        case 15: .hiking
        case 0x17: .rowing
        default: .activity
        }
    }

    /// The workout's length by the band's clock.
    public var elapsed: TimeInterval { TimeInterval(endSeconds - startSeconds) }
}
