import Foundation
import Model

/// A workout the device logged itself (a watch's FIT session, a band's sports summary), as the
/// import grades it into an Exercise log: what the device measured, nothing derived.
package struct LoggedWorkout: Sendable, Equatable {
    /// UTC.
    package var start: Date
    /// The length the device measured, in seconds.
    package var elapsed: TimeInterval
    package var kind: ExerciseKind
    /// Metres; nil when the device logged none.
    package var distance: Double?
    /// kJ; nil when the device logged none.
    package var energy: Double?
    /// Beats per minute; nil when the device measured none.
    package var averageHeartRate: Double?
    /// Beat rates the device measured during the workout (a band's sports detail), in time
    /// order; empty when it sent none.
    package var heartRates: [HeartRate] = []
    /// The key a re-import finds it by, unique per source (`session:0`, `workout:2024-03-30T06:32Z`).
    package var recordKey: String

    /// One beat rate the device measured, at a UTC instant.
    package struct HeartRate: Sendable, Equatable {
        package var time: Date
        package var beatsPerMinute: Double

        package init(time: Date, beatsPerMinute: Double) {
            self.time = time
            self.beatsPerMinute = beatsPerMinute
        }
    }

    /// kJ per kcal (the thermochemical calorie): devices log energy in kcal, the store keeps kJ.
    package static let kilojoulesPerKilocalorie = 4.184

    package init(
        start: Date, elapsed: TimeInterval, kind: ExerciseKind, distance: Double? = nil, energy: Double? = nil,
        averageHeartRate: Double? = nil, recordKey: String
    ) {
        self.start = start
        self.elapsed = elapsed
        self.kind = kind
        self.distance = distance
        self.energy = energy
        self.averageHeartRate = averageHeartRate
        self.recordKey = recordKey
    }
}
