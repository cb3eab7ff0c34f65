import Foundation
import GRDB
import Model

/// What one `SharedStore.save(_:)` (an activity batch) call did.
public struct ActivityImportSummary: Sendable, Equatable, CustomStringConvertible {
    /// The `import_run` row written for this import.
    public var runID: Int64
    /// Samples the sensors sent.
    public var samplesRead: Int
    /// Minute rows stored by this import; minutes the store held a part of, which this import
    /// completed with the samples it saw of them (same source and minute, samples at other
    /// instants); and minutes it held already as they were (the same samples again, or a minute
    /// stored without its parts).
    public var minutesAdded: Int
    public var minutesMerged: Int = 0
    public var minutesAlreadyStored: Int
    /// Exercise logs stored by this import, and those the store already held (same source and key).
    public var sessionsAdded: Int
    public var sessionsAlreadyStored: Int
    /// The Days that received new exercise logs, ascending.
    public var days: [DayDate]

    public var description: String {
        "\(sessionsAdded) new exercise sessions, \(sessionsAlreadyStored) already stored; "
            + "\(minutesAdded) new activity minutes, "
            + (minutesMerged > 0 ? "\(minutesMerged) merged with a stored part, " : "")
            + "\(minutesAlreadyStored) already stored"
    }
}

extension SharedStore {
    /// Writes one activity import in one transaction: the minutes into `activity_minute`, the
    /// sessions as imported Exercise logs on the Day of their start, the batch's cursors (raised,
    /// never lowered), and an `import_run` row.
    ///
    /// The batch is checked first (``StoreError/invalidBatch(reason:)`` names the minute or session
    /// and the value). A session the store already holds for the source (same record key) is left
    /// as it is. A minute computed from samples is kept with its part (``ActivityMinuteParts``):
    /// when the store holds other parts of it (another session's samples of the same minute), the
    /// minute is stored again from all of them and moves to this import run; a part the store
    /// holds already, or one overlapping a stored part in time, adds nothing. A minute without
    /// samples' sums (a device's own per-minute history) is stored once. So importing the same
    /// data again adds nothing. Any failure rolls everything back.
    ///
    /// In the `import_run` row, `records_read` counts samples, `records_added` counts minute
    /// rows added or completed, `records_already_stored` those left as they were, `records_skipped` counts the values left out
    /// (named in `events_json`); the sessions are the `exercise` rows carrying its id.
    package func save(_ batch: ActivityBatch) throws(StoreError) -> ActivityImportSummary {
        let zone = timeZone
        let checked = try CheckedActivityBatch(batch, zone)
        return try writeImport { db in try Self.insert(checked, zone: zone, db) }
    }

    /// The SQL of one activity import, inside a write transaction.
    static func insert(_ checked: CheckedActivityBatch, zone: TimeZone, _ db: Database) throws -> ActivityImportSummary {
        let batch = checked.batch
        let sourceID = try ImportRows.upsertSource(batch.source, db)
        try ImportRows.addServices(batch.services, sourceID: sourceID, db)
        let runID = try ImportRows.insertRun(
            sourceID: sourceID, startedAt: batch.startedAt, mode: batch.mode, origin: batch.origin,
            recordsRead: batch.samplesRead, skipped: batch.events.reduce(0) { $0 + $1.count },
            clock: batch.clock, events: batch.events, notes: batch.notes, db)

        let insertMinute = try db.cachedStatement(
            sql: """
                INSERT INTO activity_minute (
                    source_id, minute, heart_rate_bpm, step_cadence_spm, crank_cadence_rpm, speed_mps,
                    distance_m, energy_kj, gait, sensors, sample_count, import_run_id, device_activity_kind,
                    device_intensity)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (source_id, minute) DO NOTHING
                """)
        var minutesAdded = 0
        var minutesMerged = 0
        for minute in checked.minutes {
            if let tally = minute.tally {
                switch try ActivityMinuteParts.store(tally, of: minute.start, sourceID: sourceID, runID: runID, db) {
                case .added: minutesAdded += 1
                case .merged: minutesMerged += 1
                case .alreadyStored: break
                }
                continue
            }
            try insertMinute.execute(arguments: [
                sourceID, StoreTime.string(minute.start), minute.heartRate, minute.stepCadence,
                minute.crankCadence, minute.speed, minute.distance, minute.energy, minute.gait?.rawValue,
                ActivityColumns.sensors(minute.sensors), minute.sampleCount, runID, minute.device?.kind,
                minute.device?.intensity,
            ])
            minutesAdded += db.changesCount
        }
        let minutesAlreadyStored = batch.minutes.count - minutesAdded - minutesMerged

        let insertSession = try db.cachedStatement(
            sql: """
                INSERT INTO exercise (day_id, time, name, duration_seconds, intensity, source_id,
                                      device_record_key, import_run_id, distance_m, energy_kj)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (source_id, device_record_key) DO NOTHING
                """)
        // A session the device logged itself supersedes one glucobridge detected in the same
        // source's minutes before (an earlier import, cut before it read the device's log),
        // unless the user has made that one a favourite.
        let supersede = try db.cachedStatement(
            sql: """
                DELETE FROM exercise
                WHERE source_id = ? AND device_record_key GLOB 'exercise:*' AND favourite_id IS NULL
                  AND time < ? AND julianday(time) + duration_seconds / 86400.0 > julianday(?)
                """)
        var days = DayResolver(timeZone: zone)
        var daysWithNewRows: Set<DayDate> = []
        var sessionsAdded = 0
        for session in checked.sessions where session.measuredDuration != nil {
            try supersede.execute(arguments: [
                sourceID, StoreTime.string(session.start.addingTimeInterval(session.duration)), StoreTime.string(session.start),
            ])
        }
        for session in checked.sessions {
            let date = days.date(of: session.start)
            try insertSession.execute(arguments: [
                try days.id(of: date, in: db), StoreTime.string(session.start), session.kind.rawValue,
                session.duration, session.intensity.rawValue, sourceID, session.recordKey, runID, session.distance,
                session.energy,
            ])
            if db.changesCount > 0 {
                sessionsAdded += 1
                daysWithNewRows.insert(date)
            }
        }
        try db.raiseSourceCursors(batch.cursors, sourceID: sourceID, runID: runID)

        // A Day created for a session that was stored already holds nothing: remove it.
        for (date, id) in days.created where !daysWithNewRows.contains(date) {
            try db.execute(sql: "DELETE FROM day WHERE id = ?", arguments: [id])
        }

        try ImportRows.finish(runID, added: minutesAdded + minutesMerged, alreadyStored: minutesAlreadyStored, db)
        return ActivityImportSummary(
            runID: runID, samplesRead: batch.samplesRead, minutesAdded: minutesAdded, minutesMerged: minutesMerged,
            minutesAlreadyStored: minutesAlreadyStored, sessionsAdded: sessionsAdded,
            sessionsAlreadyStored: batch.sessions.count - sessionsAdded, days: daysWithNewRows.sorted())
    }
}

/// An activity batch checked before anything is written, without exact repeats.
struct CheckedActivityBatch {
    var batch: ActivityBatch
    var minutes: [ActivityMinute]
    var sessions: [ExerciseSession]

    /// Instants in its messages are shown in `zone`, the store's.
    init(_ batch: ActivityBatch, _ zone: TimeZone) throws(StoreError) {
        self.batch = batch
        try BatchChecks.source(batch.source)
        guard batch.samplesRead >= 0, batch.events.allSatisfy({ $0.count >= 0 }) else {
            throw .invalidBatch(reason: "a count of samples or of left-out values is negative")
        }
        try BatchChecks.times(startedAt: batch.startedAt, clock: batch.clock)

        minutes = try BatchChecks.withoutRepeats(batch.minutes, key: \.start, check: { minute throws(StoreError) in try Self.check(minute, zone) }) {
            minute in
            .invalidBatch(
                reason: "the activity minute \(LocalTimeText.named(minute.start, zone: zone, seconds: true)) appears twice with different values")
        }
        sessions = try BatchChecks.withoutRepeats(batch.sessions, key: \.recordKey, check: Self.check) { session in
            .invalidBatch(reason: "the exercise session \"\(session.recordKey)\" appears twice with different values")
        }
    }

    private static func check(_ minute: ActivityMinute, _ zone: TimeZone) throws(StoreError) {
        guard StoreTime.representable.contains(minute.start) else {
            throw .invalidBatch(
                reason: "an activity minute (\(minute.start.timeIntervalSince1970) s since 1970) is outside years 0001–9999")
        }
        let name = "the activity minute \(LocalTimeText.named(minute.start, zone: zone, seconds: true))"
        guard minute.start.timeIntervalSince1970.truncatingRemainder(dividingBy: 60) == 0 else {
            throw .invalidBatch(reason: "\(name) does not start on a whole minute")
        }
        let measures: [(label: String, value: Double?, unit: String, positive: Bool, limit: Double?)] = [
            ("heart rate", minute.heartRate, "bpm", true, 300),
            ("step cadence", minute.stepCadence, "steps/min", false, 1000),
            ("crank cadence", minute.crankCadence, "rpm", false, 1000),
            ("speed", minute.speed, "m/s", false, 100),
            ("distance", minute.distance, "m", false, nil),
            ("energy", minute.energy, "kJ", false, nil),
        ]
        for measure in measures {
            guard let value = measure.value else { continue }
            let aboveFloor = measure.positive ? value > 0 : value >= 0
            guard value.isFinite, aboveFloor, measure.limit.map({ value < $0 }) ?? true else {
                let range = (measure.positive ? "0 < " : "0 ≤ ") + measure.unit + (measure.limit.map { " < \(Int($0))" } ?? "")
                throw .invalidBatch(reason: "\(name) has a \(measure.label) of \(value) \(measure.unit), not within \(range)")
            }
        }
        guard !minute.sensors.isEmpty else { throw .invalidBatch(reason: "\(name) names no sensor") }
        guard minute.sampleCount > 0 else { throw .invalidBatch(reason: "\(name) was computed from \(minute.sampleCount) samples") }
    }

    private static func check(_ session: ExerciseSession) throws(StoreError) {
        guard !session.recordKey.isEmpty else { throw .invalidBatch(reason: "an exercise session has an empty record key") }
        guard StoreTime.representable.contains(session.start) else {
            throw .invalidBatch(reason: "the exercise session \"\(session.recordKey)\" starts outside years 0001–9999")
        }
        guard session.minutes > 0 else {
            throw .invalidBatch(reason: "the exercise session \"\(session.recordKey)\" lasts \(session.minutes) minutes")
        }
        for (name, value, unit) in [("distance", session.distance, "m"), ("energy", session.energy, "kJ")] {
            if let value, !(value.isFinite && value >= 0) {
                throw .invalidBatch(reason: "the exercise session \"\(session.recordKey)\" has a \(name) of \(value) \(unit)")
            }
        }
    }
}

/// How activity values are written in their columns.
enum ActivityColumns {
    /// A device's own kind and intensity columns; nil when both are NULL.
    static func device(kind: Int?, intensity: Int?) -> DeviceMinuteValues? {
        kind == nil && intensity == nil ? nil : DeviceMinuteValues(kind: kind, intensity: intensity)
    }

    /// The sensors as a JSON array of their names, sorted: `["heart-rate-band","running-pod"]`.
    static func sensors(_ sensors: Set<ActivitySensor>) -> String {
        "[" + sensors.sorted().map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]"
    }

    /// The sensors of a JSON array written by ``sensors(_:)`` or another program; nil for text
    /// that is not an array of known sensor names.
    static func sensors(_ json: String) -> Set<ActivitySensor>? {
        guard let names = try? JSONDecoder().decode([String].self, from: Data(json.utf8)) else { return nil }
        let sensors = names.compactMap(ActivitySensor.init(rawValue:))
        return sensors.count == names.count ? Set(sensors) : nil
    }
}
