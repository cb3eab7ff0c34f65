import Foundation
import GlucoseMetrics
import Model
import Store

/// Everything the report shows, read from the store for one period.
package struct ReportInput: Sendable {
    package var period: DateInterval
    package var zone: TimeZone
    /// The unit axes and values are shown in.
    package var unit: GlucoseUnit
    package var thresholds: GlucoseThresholds
    /// Every glucose reading of the period (fingersticks are left out of the metrics and the curves).
    package var readings: [StoredGlucose]
    package var meals: [Stored<MealLog>]
    package var insulin: [Stored<InsulinLog>]
    package var exercise: [Stored<ExerciseLog>]
    /// When the report was made, shown in its footer.
    package var generated: Date

    package init(
        period: DateInterval, zone: TimeZone, unit: GlucoseUnit, thresholds: GlucoseThresholds, readings: [StoredGlucose],
        meals: [Stored<MealLog>], insulin: [Stored<InsulinLog>], exercise: [Stored<ExerciseLog>], generated: Date
    ) {
        self.period = period
        self.zone = zone
        self.unit = unit
        self.thresholds = thresholds
        self.readings = readings
        self.meals = meals
        self.insulin = insulin
        self.exercise = exercise
        self.generated = generated
    }

    /// Reads the period's readings and logs from `store`.
    package init(store: SharedStore, period: DateInterval, unit: GlucoseUnit, generated: Date = Date()) throws(StoreError) {
        self.init(
            period: period, zone: store.timeZone, unit: unit, thresholds: try store.thresholds(),
            readings: try store.glucose(from: period.start, to: period.end),
            meals: try store.logs(MealLog.self, from: period.start, to: period.end),
            insulin: try store.logs(InsulinLog.self, from: period.start, to: period.end),
            exercise: try store.logs(ExerciseLog.self, from: period.start.addingTimeInterval(-86_400), to: period.end),
            generated: generated)
    }

    /// The Days the period touches, in the report's zone, first to last.
    var days: [DayDate] {
        let first = DayDate(instant: period.start, timeZone: zone)
        let last = DayDate(instant: period.end.addingTimeInterval(-0.001), timeZone: zone)
        var days: [DayDate] = []
        var day = first
        while day <= last {
            days.append(day)
            day = day.adding(days: 1)
        }
        return days
    }

    /// Minutes after local midnight of `date` in the report's zone.
    func minuteOfDay(_ date: Date) -> Double {
        let local = date.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: date))
        let seconds = local - (local / 86_400).rounded(.down) * 86_400
        return seconds / 60
    }
}
