import Foundation
import Model

/// Finds exercise sessions in the activity samples of one device (one source): resamples them
/// to minutes (``ActivityResampler``), classes each minute (``IntensityClassifier``), joins
/// active minutes into sessions, then names and grades each session. Pure: the same samples and profile always
/// give the same sessions, with the same keys, so a re-import adds nothing.
///
/// Sessions (after the accelerometer convention of Troiano et al.,
/// Med Sci Sports Exerc 2008, as tabled in Am J Epidemiol 2016, PMC5100839):
/// - Active minutes separated by at most ``Configuration/maximumGapMinutes`` inactive or absent
///   minutes (default 2) are joined. A joined span whose inactive minutes exceed
///   ``Configuration/maximumInactiveShare`` of its length (default 20 %) is split at its longest
///   gap (the earliest of equal gaps), again until every part passes.
/// - A session runs from its first to its last active minute; it is kept when it lasts at least
///   ``Configuration/minimumMinutes`` (default 10, the bout length of the 2010 WHO guidelines and
///   of MVPA bouts in accelerometry; configurable, Gadgetbridge uses 5).
/// - Intensity: the class of most of its active minutes; a tie goes to the higher class, so a
///   session with as many vigorous as moderate minutes is vigorous.
/// - Name: `Cycling` when a bike sensor moved in at least as many active minutes as steps were
///   counted; otherwise, when steps were counted in more than half the active minutes, `Running`
///   if their median cadence is ≥ 140 steps/min or most minutes with a gait say running,
///   `Walking` if the median is ≥ 60 steps/min; `Activity` in every other case (heart rate alone,
///   a fitness machine without steps).
/// - Key: `exercise:` and the UTC start minute (``ExerciseSession/recordKey(start:)``); the store
///   pairs it with the source.
package struct ExerciseDetector: Sendable {
    /// The session rules' parameters.
    package struct Configuration: Sendable, Equatable {
        /// Sessions shorter than this many minutes are dropped.
        package var minimumMinutes: Int
        /// The longest run of inactive minutes a session bridges.
        package var maximumGapMinutes: Int
        /// The largest share (0…1) of a session's minutes that may be inactive.
        package var maximumInactiveShare: Double

        /// 10 minutes, gaps of 2 minutes, 20 % inactive.
        package static let standard = Configuration(uncheckedMinimum: 10, gap: 2, share: 0.2)

        /// Throws ``ExerciseDetectorError/invalidConfiguration(_:)`` unless minimum ≥ 1,
        /// gap ≥ 0 and 0 ≤ share ≤ 1.
        package init(minimumMinutes: Int = 10, maximumGapMinutes: Int = 2, maximumInactiveShare: Double = 0.2) throws(ExerciseDetectorError) {
            guard minimumMinutes >= 1 else {
                throw .invalidConfiguration("the minimum session length must be at least 1 minute (got \(minimumMinutes))")
            }
            guard maximumGapMinutes >= 0 else {
                throw .invalidConfiguration("the longest gap must be 0 minutes or more (got \(maximumGapMinutes))")
            }
            guard maximumInactiveShare.isFinite, (0...1).contains(maximumInactiveShare) else {
                throw .invalidConfiguration("the inactive share must be within 0…1 (got \(maximumInactiveShare))")
            }
            self.init(uncheckedMinimum: minimumMinutes, gap: maximumGapMinutes, share: maximumInactiveShare)
        }

        private init(uncheckedMinimum: Int, gap: Int, share: Double) {
            minimumMinutes = uncheckedMinimum
            maximumGapMinutes = gap
            maximumInactiveShare = share
        }
    }

    package var classifier: IntensityClassifier
    package var configuration: Configuration

    /// Running: median step cadence at or above this (Gadgetbridge's StepAnalysis.java uses 120).
    package static let runningCadence = 140.0
    /// Walking: median step cadence at or above this.
    package static let walkingCadence = 60.0

    package init(profile: UserProfile = UserProfile(), configuration: Configuration = .standard) {
        classifier = IntensityClassifier(profile: profile)
        self.configuration = configuration
    }

    /// The sessions in `minutes` of one device (any order; of two minutes with the same start
    /// the first is used; minutes outside years 0001–9999 are ignored).
    package func sessions(in minutes: [ActivityMinute]) -> [ExerciseSession] {
        var seen: Set<Int64> = []
        let active: [ActiveMinute] = minutes.enumerated()
            .compactMap { offset, minute in
                ActivityMinute.number(of: minute.start).map { (number: $0, offset: offset, minute: minute) }
            }
            .sorted { ($0.number, $0.offset) < ($1.number, $1.offset) }
            .compactMap { number, _, minute in
                guard seen.insert(number).inserted, let assessment = classifier.assess(minute), assessment.isActive
                else { return nil }
                return ActiveMinute(number: number, minute: minute, intensity: assessment.intensity)
            }

        var spans: [ArraySlice<ActiveMinute>] = []
        var first = active.startIndex
        for index in active.indices.dropFirst()
        where active[index].number - active[index - 1].number - 1 > Int64(configuration.maximumGapMinutes) {
            spans.append(active[first..<index])
            first = index
        }
        if first < active.endIndex { spans.append(active[first...]) }

        return spans.flatMap(split)
            .filter { length($0) >= configuration.minimumMinutes }
            .map(session)
    }

    /// Resamples `samples` and detects their sessions, as one batch for the store.
    ///
    /// Adds a note when samples carry heart rate that the profile cannot class (no age or maximum).
    package func batch(
        from samples: [ActivitySample], source: DeviceSource, startedAt: Date, mode: ImportMode, origin: String?,
        clock: ClockReport
    ) -> ActivityBatch {
        let resampled = ActivityResampler.minutes(from: samples)
        var notes: [String] = []
        if classifier.profile.heartRateMethod == nil, resampled.minutes.contains(where: { $0.heartRate != nil }) {
            notes.append("heart rate was not used for intensity: the profile has no age or maximum heart rate")
        }
        return ActivityBatch(
            source: source, startedAt: startedAt, mode: mode, origin: origin, clock: clock,
            minutes: resampled.minutes, sessions: sessions(in: resampled.minutes), samplesRead: samples.count,
            events: resampled.events, notes: notes)
    }

    // MARK: - Sessions

    private struct ActiveMinute {
        var number: Int64
        var minute: ActivityMinute
        var intensity: ActivityIntensity
    }

    /// First to last minute, both included.
    private func length(_ span: ArraySlice<ActiveMinute>) -> Int {
        Int(span.last!.number - span.first!.number + 1)
    }

    /// `span`, split at its longest gaps until no part has too many inactive minutes.
    private func split(_ span: ArraySlice<ActiveMinute>) -> [ArraySlice<ActiveMinute>] {
        let inactive = length(span) - span.count
        guard Double(inactive) > configuration.maximumInactiveShare * Double(length(span)) else { return [span] }
        var cut = span.startIndex + 1
        var longest: Int64 = -1
        for index in span.indices.dropFirst() {
            let gap = span[index].number - span[index - 1].number - 1
            if gap > longest {
                longest = gap
                cut = index
            }
        }
        return split(span[..<cut]) + split(span[cut...])
    }

    private func session(_ span: ArraySlice<ActiveMinute>) -> ExerciseSession {
        var counts: [ActivityIntensity: Int] = [:]
        for minute in span { counts[minute.intensity, default: 0] += 1 }
        // Most minutes; on a tie the higher class (allCases ascends, so the later wins).
        let intensity = ActivityIntensity.allCases.reduce(ActivityIntensity.light) { best, next in
            (counts[next] ?? 0) >= (counts[best] ?? 0) ? next : best
        }
        return ExerciseSession(
            start: Date(timeIntervalSince1970: TimeInterval(span.first!.number * 60)), minutes: length(span), kind: kind(span), intensity: intensity,
            minutesByIntensity: counts)
    }

    private func kind(_ span: ArraySlice<ActiveMinute>) -> ExerciseKind {
        let minutes = span.map(\.minute)
        let cycling = minutes.filter { $0.sensors.contains(.cycling) && (($0.crankCadence ?? 0) > 0 || ($0.speed ?? 0) > 0) }.count
        let steps = minutes.compactMap(\.stepCadence).sorted()
        if cycling > 0, cycling >= steps.count { return .cycling }
        guard steps.count * 2 > minutes.count else { return .activity }
        let middle = steps.count / 2
        let median = steps.count % 2 == 1 ? steps[middle] : (steps[middle - 1] + steps[middle]) / 2
        let running = minutes.filter { $0.gait == .running }.count
        let walking = minutes.filter { $0.gait == .walking }.count
        if median >= Self.runningCadence || running > walking { return .running }
        if median >= Self.walkingCadence { return .walking }
        return .activity
    }
}

/// Exercise detection parameters the detector refuses.
package enum ExerciseDetectorError: Error, Equatable, CustomStringConvertible {
    case invalidConfiguration(String)

    package var description: String {
        switch self {
        case .invalidConfiguration(let reason): "invalid exercise detection setting: \(reason)"
        }
    }
}
