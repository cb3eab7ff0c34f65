import Drivers
import Foundation
import Ingest
import Model

/// Workouts a device logged itself (FIT sessions, a band's sports summaries) as Exercise logs:
/// each graded by ``IntensityClassifier`` over the minutes inside it (most minutes; a tie, the
/// higher class), their heart rates those it logged during the workout where it did (a band's
/// sports detail); else by its average heart rate (the device's, else the mean of the rates it
/// logged), else light (its start is then named).
enum LoggedWorkoutGrading {
    static func sessions(
        _ workouts: [LoggedWorkout], minutes: [ActivityMinute], classifier: IntensityClassifier
    ) -> (sessions: [ExerciseSession], ungraded: [String]) {
        var ungraded: [String] = []
        let sessions = workouts.map { logged -> ExerciseSession in
            let end = logged.start.addingTimeInterval(logged.elapsed)
            let startMinute = ActivityMinute.number(of: logged.start) ?? 0
            var counts: [ActivityIntensity: Int] = [:]
            let inside = withLoggedHeartRates(
                minutes.filter { $0.start < end && (ActivityMinute.number(of: $0.start) ?? .min) >= startMinute }, logged.heartRates)
            for minute in inside {
                if let assessed = classifier.assess(minute) { counts[assessed.intensity, default: 0] += 1 }
            }
            // Most minutes; on a tie the higher class (allCases ascends, so the later wins).
            var intensity = ActivityIntensity.allCases.reduce(ActivityIntensity.light) { best, next in
                (counts[next] ?? 0) >= (counts[best] ?? 0) ? next : best
            }
            if counts.isEmpty {
                let mean =
                    logged.heartRates.isEmpty
                    ? nil : logged.heartRates.reduce(0) { $0 + $1.beatsPerMinute } / Double(logged.heartRates.count)
                if let rate = logged.averageHeartRate ?? mean, let (graded, _) = classifier.heartRateClass(rate) {
                    intensity = graded
                } else {
                    intensity = .light
                    ungraded.append(PlausibleWindow.utc(logged.start))
                }
            }
            var session = ExerciseSession(
                start: logged.start, minutes: max(1, Int((logged.elapsed / 60).rounded(.up))), kind: logged.kind, intensity: intensity,
                minutesByIntensity: counts)
            session.measuredDuration = logged.elapsed
            session.distance = logged.distance
            session.energy = logged.energy
            session.recordKey = logged.recordKey
            return session
        }
        return (sessions, ungraded)
    }

    /// A workout's minutes with the beat rates it logged: a minute's heart rate is the mean of
    /// those in it, the rest of the minute (cadence, speed) as stored; a minute of rates alone
    /// is a heart-rate band's.
    static func withLoggedHeartRates(_ minutes: [ActivityMinute], _ rates: [LoggedWorkout.HeartRate]) -> [ActivityMinute] {
        guard !rates.isEmpty else { return minutes }
        var byStart: [Date: ActivityMinute] = [:]
        for minute in minutes { byStart[minute.start] = byStart[minute.start] ?? minute }
        for measured in heartRateMinutes(rates) {
            if var stored = byStart[measured.start] {
                stored.heartRate = measured.heartRate
                byStart[measured.start] = stored
            } else {
                byStart[measured.start] = measured
            }
        }
        return byStart.values.sorted { $0.start < $1.start }
    }

    /// The beat rates of a workout as minutes of a heart-rate band: each minute's mean.
    static func heartRateMinutes(_ rates: [LoggedWorkout.HeartRate]) -> [ActivityMinute] {
        var byMinute: [Int64: (sum: Double, count: Int)] = [:]
        for rate in rates {
            guard let minute = ActivityMinute.number(of: rate.time) else { continue }
            byMinute[minute, default: (0, 0)].sum += rate.beatsPerMinute
            byMinute[minute, default: (0, 0)].count += 1
        }
        return byMinute.keys.sorted().map { minute in
            let (sum, count) = byMinute[minute]!
            return ActivityMinute(
                start: Date(timeIntervalSince1970: TimeInterval(minute * 60)), heartRate: sum / Double(count), sensors: [.heartRateBand],
                sampleCount: count)
        }
    }

    /// The note for workouts nothing in could be graded.
    static func ungradedNote(_ starts: [String], what: String) -> String? {
        guard !starts.isEmpty else { return nil }
        return "intensity light for the \(what) at \(starts.joined(separator: ", ")): nothing in it could be graded "
            + "(no heart rate the profile can class, no cadence, no bike speed)"
    }

    /// Whether two sessions share any time.
    static func overlap(_ a: ExerciseSession, _ b: ExerciseSession) -> Bool {
        a.start < b.start.addingTimeInterval(b.duration) && b.start < a.start.addingTimeInterval(a.duration)
    }
}
