import Drivers
import Foundation
import Ingest
import Model

/// Workouts a device logged itself (FIT sessions, a band's sports summaries) as Exercise logs:
/// each graded by ``IntensityClassifier`` over the minutes inside it (most minutes; a tie, the
/// higher class), else by its average heart rate, else light (its start is then named).
enum LoggedWorkoutGrading {
    static func sessions(
        _ workouts: [LoggedWorkout], minutes: [ActivityMinute], classifier: IntensityClassifier
    ) -> (sessions: [ExerciseSession], ungraded: [String]) {
        var ungraded: [String] = []
        let sessions = workouts.map { logged -> ExerciseSession in
            let end = logged.start.addingTimeInterval(logged.elapsed)
            let startMinute = ActivityMinute.number(of: logged.start) ?? 0
            var counts: [ActivityIntensity: Int] = [:]
            for minute in minutes where minute.start < end && (ActivityMinute.number(of: minute.start) ?? .min) >= startMinute {
                if let assessed = classifier.assess(minute) { counts[assessed.intensity, default: 0] += 1 }
            }
            // Most minutes; on a tie the higher class (allCases ascends, so the later wins).
            var intensity = ActivityIntensity.allCases.reduce(ActivityIntensity.light) { best, next in
                (counts[next] ?? 0) >= (counts[best] ?? 0) ? next : best
            }
            if counts.isEmpty {
                if let rate = logged.averageHeartRate, let (graded, _) = classifier.heartRateClass(rate) {
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
