import Foundation
import GRDB
import Model

/// The parts of activity minutes that sessions saw (`activity_minute_part`, migration
/// `v10-activity-minute-parts`): each import's sums and counts of a minute, keyed by the source,
/// the minute and the instants of its first and last sample. A minute computed from samples is
/// stored from all its parts (``MinuteTally/merged(_:)``), so that a minute split between two
/// Bluetooth sessions ends up as one session seeing all its samples would have stored it.
enum ActivityMinuteParts {
    /// What storing one part of a minute did.
    enum Outcome {
        /// The minute was new.
        case added
        /// The minute was stored before and now holds this part too.
        case merged
        /// The store holds this part already (the same samples imported again), a part that
        /// overlaps it in time, or the minute without its parts (stored before parts were kept,
        /// or from a device's own per-minute history): nothing was written.
        case alreadyStored
    }

    /// Stores `tally`, the part an import saw of `minute`, and the minute made from all its
    /// parts, written by import run `runID` (which a sync then sends again).
    static func store(_ tally: MinuteTally, of minute: Date, sourceID: Int64, runID: Int64, _ db: Database) throws -> Outcome {
        let start = StoreTime.string(minute)
        // Written to the millisecond, kept inside the minute (59.9996 s would round to the next).
        let lastMillisecond = minute.addingTimeInterval(59.999)
        let first = StoreTime.string(min(tally.firstSample, lastMillisecond))
        let last = StoreTime.string(min(tally.lastSample, lastMillisecond))
        let overlap = try db.cachedStatement(
            sql: """
                SELECT EXISTS (SELECT 1 FROM activity_minute_part
                               WHERE source_id = ? AND minute = ? AND first_sample <= ? AND last_sample >= ?)
                """)
        let overlapping = try Bool.fetchOne(overlap, arguments: [sourceID, start, last, first]) ?? false
        if overlapping { return .alreadyStored }
        let exists = try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM activity_minute WHERE source_id = ? AND minute = ?)")
        let stored = try Bool.fetchOne(exists, arguments: [sourceID, start]) ?? false
        let parts = try self.parts(sourceID: sourceID, minute: start, db)
        if stored && parts.isEmpty { return .alreadyStored }
        guard let merged = MinuteTally.merged(parts + [tally])?.minute(start: minute) else {
            throw StoreError.database("the activity minute \(start) UTC has no samples to store")
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO activity_minute (
                    source_id, minute, heart_rate_bpm, step_cadence_spm, crank_cadence_rpm, speed_mps,
                    distance_m, energy_kj, gait, sensors, sample_count, import_run_id, device_activity_kind,
                    device_intensity)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (source_id, minute) DO UPDATE SET
                    heart_rate_bpm = excluded.heart_rate_bpm, step_cadence_spm = excluded.step_cadence_spm,
                    crank_cadence_rpm = excluded.crank_cadence_rpm, speed_mps = excluded.speed_mps,
                    distance_m = excluded.distance_m, energy_kj = excluded.energy_kj, gait = excluded.gait,
                    sensors = excluded.sensors, sample_count = excluded.sample_count, import_run_id = excluded.import_run_id,
                    device_activity_kind = excluded.device_activity_kind, device_intensity = excluded.device_intensity
                """
        ).execute(arguments: [
            sourceID, start, merged.heartRate, merged.stepCadence, merged.crankCadence, merged.speed, merged.distance,
            merged.energy, merged.gait?.rawValue, ActivityColumns.sensors(merged.sensors), merged.sampleCount, runID,
            merged.device?.kind, merged.device?.intensity,
        ])
        try db.cachedStatement(
            sql: """
                INSERT INTO activity_minute_part (
                    source_id, minute, first_sample, last_sample, heart_rate_sum, heart_rate_count,
                    step_cadence_sum, step_cadence_count, crank_cadence_sum, crank_cadence_count, speed_sum,
                    speed_count, distance_m, energy_kj, walking_count, running_count, sensors, running_totals,
                    sample_count, import_run_id, device_activity_kind, device_intensity)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            sourceID, start, first, last, tally.heartRate.total, tally.heartRate.count, tally.stepCadence.total,
            tally.stepCadence.count, tally.crankCadence.total, tally.crankCadence.count, tally.speed.total,
            tally.speed.count, tally.distance, tally.energy, tally.walking, tally.running,
            ActivityColumns.sensors(tally.sensors), try runningTotals(tally.totals), tally.samples, runID,
            tally.device?.kind, tally.device?.intensity,
        ])
        return stored ? .merged : .added
    }

    /// The stored parts of a source's minute (`minute` as the store writes instants).
    static func parts(sourceID: Int64, minute: String, _ db: Database) throws -> [MinuteTally] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT first_sample, last_sample, heart_rate_sum, heart_rate_count, step_cadence_sum,
                           step_cadence_count, crank_cadence_sum, crank_cadence_count, speed_sum, speed_count,
                           distance_m, energy_kj, walking_count, running_count, sensors, running_totals, sample_count,
                           device_activity_kind, device_intensity
                    FROM activity_minute_part WHERE source_id = ? AND minute = ? ORDER BY first_sample
                    """),
            arguments: [sourceID, minute]
        ).map { row in
            var tally = MinuteTally(
                firstSample: try Decode.instant(row, 0, "activity_minute_part.first_sample"),
                lastSample: try Decode.instant(row, 1, "activity_minute_part.last_sample"))
            tally.heartRate = MinuteTally.Sum(total: row[2], count: row[3])
            tally.stepCadence = MinuteTally.Sum(total: row[4], count: row[5])
            tally.crankCadence = MinuteTally.Sum(total: row[6], count: row[7])
            tally.speed = MinuteTally.Sum(total: row[8], count: row[9])
            tally.distance = row[10]
            tally.energy = row[11]
            tally.walking = row[12]
            tally.running = row[13]
            let sensorsText: String = row[14]
            guard let sensors = ActivityColumns.sensors(sensorsText) else {
                throw StoreError.database("the store holds a value glucobridge cannot read: activity_minute_part.sensors = '\(sensorsText)'")
            }
            tally.sensors = sensors
            tally.totals = try runningTotals(row[15])
            tally.samples = row[16]
            tally.device = ActivityColumns.device(kind: row[17], intensity: row[18])
            return tally
        }
    }

    /// Each sensor's running totals as a JSON object by sensor name:
    /// `{"heart-rate-band":{"energy":{"first":30,"firstIsBase":true,"last":33}}}`.
    static func runningTotals(_ totals: [ActivitySensor: MinuteTally.SensorTotals]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let named = Dictionary(uniqueKeysWithValues: totals.map { ($0.key.rawValue, $0.value) })
        return String(decoding: try encoder.encode(named), as: UTF8.self)
    }

    static func runningTotals(_ json: String) throws -> [ActivitySensor: MinuteTally.SensorTotals] {
        guard let named = try? JSONDecoder().decode([String: MinuteTally.SensorTotals].self, from: Data(json.utf8)) else {
            throw StoreError.database("the store holds a value glucobridge cannot read: activity_minute_part.running_totals = '\(json)'")
        }
        var totals: [ActivitySensor: MinuteTally.SensorTotals] = [:]
        for (name, value) in named {
            guard let sensor = ActivitySensor(rawValue: name) else {
                throw StoreError.database("activity_minute_part.running_totals names an unknown sensor: '\(name)'")
            }
            totals[sensor] = value
        }
        return totals
    }
}
