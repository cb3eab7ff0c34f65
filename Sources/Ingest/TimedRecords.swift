import Foundation
import Model
import Pipeline

extension Normaliser {
    /// The import batch for a device whose records carry their own time, where no anchoring to
    /// the host clock applies: a Bluetooth CGM (session start in UTC + time offset, `.universal`)
    /// or a Bluetooth meter (its wall clock, `.localWallClock`, read in `timeZone`).
    ///
    /// A record's instant is `epoch + deviceSeconds` (a wall clock read in `timeZone`). When the
    /// download read the device's current clock at a known host time, both are kept in the
    /// clock report, so the offset between the two shows, but the readings are not moved by it.
    /// Only readings inside `window` are kept; an implausible time base (a CGM's Session Start
    /// Time) that would put all of them outside is an error.
    package static func batch(
        timedByDevice download: GlucoseDownload, mode: ImportMode, origin: String?, startedAt: Date, timeZone: TimeZone,
        window: PlausibleWindow
    ) throws(ImplausibleClockError) -> ImportBatch {
        let clock = download.clock
        let epoch = clock.epoch.timeIntervalSince1970
        let instant = { (seconds: Int64) in deviceInstant(epoch + TimeInterval(seconds), clock.basis, timeZone) }
        let report = ClockReport(
            hostTime: clock.hostNow, deviceTime: clock.deviceNow.map(instant),
            method: clock.basis == .universal ? .deviceClockAsUTC : .deviceLocalTime)
        let readings = download.glucose.map { GlucoseReading($0, at: instant($0.deviceSeconds), epoch: Int64(epoch)) }
        var notes = download.notes
        if clock.basis == .localWallClock { notes += zoneChangeNotes(readings.map(\.time), timeZone: timeZone) }
        let batch = ImportBatch(
            source: download.source, startedAt: startedAt, mode: mode, origin: origin, clock: report, glucose: readings,
            recordsRead: download.recordsRead, events: download.events, cursors: download.cursors, notes: notes)
        return try checked(batch, clock: clock, method: report.method, window: window)
    }

    /// Exercise sessions from exercise a device logged itself, timed by `clock` (wall clocks read
    /// in `timeZone`).
    ///
    /// The device notes an exercise with a reading, without its start: the session is taken to
    /// end at that reading and to last its duration (rounded to whole minutes, at least one). Its
    /// name is `Activity`. The Glucose Measurement Context gives intensity only as a percentage,
    /// without saying of what; it is read on the heart-rate-reserve scale of the activity
    /// guidelines (ACSM 2018, as ``IntensityClassifier`` uses it): below 40 % light, 40–59 %
    /// moderate, 60 % and above vigorous.
    package static func exerciseSessions(_ exercise: [DeviceExercise], clock: DeviceClock, timeZone: TimeZone) -> [ExerciseSession] {
        let epoch = clock.epoch.timeIntervalSince1970
        return exercise.map { noted in
            let end = deviceInstant(epoch + TimeInterval(noted.deviceSeconds), clock.basis, timeZone)
            let minutes = max(1, Int((Double(noted.durationSeconds) / 60).rounded()))
            let fraction = Double(noted.intensityPercent) / 100
            let intensity: ActivityIntensity =
                fraction >= IntensityClassifier.reserveVigorous
                ? .vigorous : fraction >= IntensityClassifier.reserveModerate ? .moderate : .light
            var session = ExerciseSession(
                start: end.addingTimeInterval(-TimeInterval(minutes * 60)), minutes: minutes, kind: .activity, intensity: intensity,
                minutesByIntensity: [intensity: minutes])
            session.recordKey = noted.recordKey
            return session
        }
    }
}
