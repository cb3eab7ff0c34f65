import Foundation
import Model

/// The kinds of CGM-based event of the 2023 international consensus on CGM metrics for
/// clinical trials (Battelino et al., Lancet Diabetes Endocrinol 2023;11(1):42–57).
package enum GlycaemicEventKind: String, Sendable, CaseIterable, Codable {
    /// Below the low threshold (70 mg/dL): level 1 hypoglycaemia, including the events that also
    /// reach level 2, as the reference implementation iglu (`episode_calculation`) counts them.
    case hypoLevel1 = "hypo_l1"
    /// Below the very low threshold (54 mg/dL).
    case hypoLevel2 = "hypo_l2"
    /// Above the high threshold (180 mg/dL), including those that reach level 2.
    case hyperLevel1 = "hyper_l1"
    /// Above the very high threshold (250 mg/dL).
    case hyperLevel2 = "hyper_l2"

    /// Whether `tag` is beyond this kind's threshold.
    func isBeyond(_ tag: GlucoseTag) -> Bool {
        switch self {
        case .hypoLevel1: tag.isHypo
        case .hypoLevel2: tag == .hypoLevel2
        case .hyperLevel1: tag.isHyper
        case .hyperLevel2: tag == .hyperLevel2
        }
    }

    package var isHypo: Bool { self == .hypoLevel1 || self == .hypoLevel2 }
}

/// One CGM-based event: from its first reading beyond the threshold to its last one before
/// the readings came back (or the data stopped).
package struct GlycaemicEvent: Sendable, Equatable {
    package var kind: GlycaemicEventKind
    package var start: Date
    /// The last reading beyond the threshold.
    package var end: Date
    /// The lowest value of a hypo, the highest of a hyper, in mg/dL (readings only, not the
    /// values filled into short gaps).
    package var extreme: Double
    /// Whether the data stopped (end of the period, or a gap over 45 minutes) before the event ended.
    package var endedByGap: Bool

    /// The event's length, counting each reading for one sensor interval.
    package func duration(interval: TimeInterval) -> TimeInterval { end.timeIntervalSince(start) + interval }
}

/// Finds the consensus events in a CGM trace.
///
/// The rules, as the 2023 consensus states them and `iglu`'s `episode_calculation` encodes them
/// (github.com/irinagain/iglu, R/episode_calculation.R):
/// - an event starts with at least 15 consecutive minutes beyond the threshold (< 70, < 54,
///   > 180, > 250 mg/dL by default: the store's thresholds), each reading counting for one
///   sensor interval (3 readings at 5 minutes, 1 at 15);
/// - it ends with at least 15 consecutive minutes back (at or above the hypo threshold, at or
///   below the hyper one); shorter returns do not end it;
/// - a gap in the data longer than 45 minutes ends any event and starts a new trace; shorter
///   gaps are filled at the sensor interval by straight lines between the readings around them.
package struct EventDetector: Sendable {
    package var interval: TimeInterval
    package var thresholds: GlucoseThresholds
    /// 15 minutes, for start and end alike.
    package static let minimumDuration: TimeInterval = 15 * 60
    /// A gap longer than this splits the trace.
    package static let maximumGap: TimeInterval = 45 * 60

    package init(interval: TimeInterval, thresholds: GlucoseThresholds) {
        self.interval = interval
        self.thresholds = thresholds
    }

    /// A point of the trace: a reading, or a value filled into a short gap.
    struct Point {
        var time: Date
        var mgdl: Double
        var tag: GlucoseTag
        var isReading: Bool
    }

    /// The events of every kind in `readings` (CGM readings, ascending by time), each kind's in
    /// time order.
    package func events(in readings: [(time: Date, mgdl: Double, tag: GlucoseTag)]) -> [GlycaemicEvent] {
        let segments = self.segments(readings)
        return GlycaemicEventKind.allCases.flatMap { kind in segments.flatMap { events(of: kind, in: $0) } }
    }

    /// The readings cut at gaps over 45 minutes, shorter gaps filled at the sensor interval.
    func segments(_ readings: [(time: Date, mgdl: Double, tag: GlucoseTag)]) -> [[Point]] {
        var segments: [[Point]] = []
        var current: [Point] = []
        for reading in readings {
            if let last = current.last {
                let gap = reading.time.timeIntervalSince(last.time)
                if gap > Self.maximumGap {
                    segments.append(current)
                    current = []
                } else {
                    let missing = Int((gap / interval).rounded()) - 1
                    if missing > 0 {
                        for step in 1...missing {
                            let fraction = Double(step) / Double(missing + 1)
                            let mgdl = last.mgdl + (reading.mgdl - last.mgdl) * fraction
                            current.append(
                                Point(
                                    time: last.time.addingTimeInterval(gap * fraction), mgdl: mgdl,
                                    tag: thresholds.tag(mgdl: mgdl), isReading: false))
                        }
                    }
                }
            }
            current.append(Point(time: reading.time, mgdl: reading.mgdl, tag: reading.tag, isReading: true))
        }
        if !current.isEmpty { segments.append(current) }
        return segments
    }

    /// The events of `kind` in one gap-free segment: runs of points beyond the threshold and back.
    func events(of kind: GlycaemicEventKind, in points: [Point]) -> [GlycaemicEvent] {
        let needed = Int((Self.minimumDuration / interval).rounded(.up))
        var events: [GlycaemicEvent] = []
        var open: GlycaemicEvent?
        var index = 0
        while index < points.count {
            let beyond = kind.isBeyond(points[index].tag)
            var runEnd = index
            while runEnd + 1 < points.count, kind.isBeyond(points[runEnd + 1].tag) == beyond { runEnd += 1 }
            let length = runEnd - index + 1
            if beyond {
                let run = points[index...runEnd]
                let values = run.filter(\.isReading).map(\.mgdl)
                let extreme = kind.isHypo ? values.min() : values.max()
                if var event = open {
                    event.end = points[runEnd].time
                    if let extreme { event.extreme = kind.isHypo ? min(event.extreme, extreme) : max(event.extreme, extreme) }
                    open = event
                } else if length >= needed {
                    open = GlycaemicEvent(
                        kind: kind, start: points[index].time, end: points[runEnd].time,
                        extreme: extreme ?? (kind.isHypo ? run.map(\.mgdl).min()! : run.map(\.mgdl).max()!), endedByGap: false)
                }
            } else if let event = open, length >= needed {
                events.append(event)
                open = nil
            }
            index = runEnd + 1
        }
        if var event = open {
            event.endedByGap = true
            events.append(event)
        }
        return events
    }
}
