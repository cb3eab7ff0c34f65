import Foundation
import GRDB
import Model

/// A stored activity minute and the device it came from.
public struct StoredActivityMinute: Sendable, Equatable {
    public var source: DeviceSource
    public var minute: ActivityMinute
}

extension SharedStore {
    /// The activity minutes with `from ≤ minute < to` (either bound may be omitted), of one
    /// device or of all, ascending by minute, then by source.
    ///
    /// Searched through the primary key `(source_id, minute)` for one device, through
    /// `activity_minute_by_time` for all. A device the store does not know has no minutes.
    public func activityMinutes(source: DeviceSource? = nil, from: Date? = nil, to: Date? = nil) throws(StoreError) -> [StoredActivityMinute] {
        var (conditions, arguments) = StoreTime.range("m.minute", from: from, to: to)
        return try read { db in
            if let source {
                guard
                    let id = try Int64.fetchOne(
                        db, sql: "SELECT id FROM source WHERE family = ? AND serial = ?", arguments: [source.family.rawValue, source.serial])
                else { return [] }
                conditions.insert("m.source_id = ?", at: 0)
                arguments = [id] + arguments
            }
            let condition = conditions.isEmpty ? "1" : conditions.joined(separator: " AND ")
            return try Row.fetchAll(db.cachedStatement(sql: ActivityMinuteQuery.sql(where: condition)), arguments: arguments).map { row in
                let sensorsText: String = row[11]
                guard let sensors = ActivityColumns.sensors(sensorsText) else {
                    throw StoreError.database("the store holds a value glucobridge cannot read: activity_minute.sensors = '\(sensorsText)'")
                }
                let minute = ActivityMinute(
                    start: try Decode.instant(row, 3, "activity_minute.minute"), heartRate: row[4], stepCadence: row[5],
                    crankCadence: row[6], speed: row[7], distance: row[8], energy: row[9],
                    gait: try Decode.optionalValue(row, 10, "activity_minute.gait"), sensors: sensors, sampleCount: row[12],
                    device: ActivityColumns.device(kind: row[13], intensity: row[14]))
                return StoredActivityMinute(
                    source: DeviceSource(family: DeviceFamily(row[0] as String), serial: row[1], model: row[2]), minute: minute)
            }
        }
    }

    // MARK: - User profile

    /// The profile exercise detection uses (empty until one is set).
    public func userProfile() throws(StoreError) -> UserProfile {
        try read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT age_years, max_heart_rate_bpm, resting_heart_rate_bpm FROM user_profile WHERE id = 1")
            else { return UserProfile() }
            do {
                return try UserProfile(age: row[0], maxHeartRate: row[1], restingHeartRate: row[2])
            } catch {
                throw StoreError.database("the user profile kept in the store is invalid: \(error)")
            }
        }
    }

    /// Keeps `profile` in the store, replacing the one there. Sessions already stored keep the
    /// intensity they were detected with; the profile applies to later imports.
    public func setUserProfile(_ profile: UserProfile) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO user_profile (id, age_years, max_heart_rate_bpm, resting_heart_rate_bpm)
                    VALUES (1, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET age_years = excluded.age_years,
                        max_heart_rate_bpm = excluded.max_heart_rate_bpm,
                        resting_heart_rate_bpm = excluded.resting_heart_rate_bpm
                    """,
                arguments: [profile.age, profile.maxHeartRate, profile.restingHeartRate])
        }
    }
}

/// The one SELECT of activity minutes (`m`) with their source (`s`), by minute then source.
/// `CROSS JOIN` keeps `activity_minute` the outer loop, searched through its primary key or
/// `activity_minute_by_time`.
enum ActivityMinuteQuery {
    static func sql(where condition: String) -> String {
        """
        SELECT s.family, s.serial, s.model, m.minute, m.heart_rate_bpm, m.step_cadence_spm,
               m.crank_cadence_rpm, m.speed_mps, m.distance_m, m.energy_kj, m.gait, m.sensors,
               m.sample_count, m.device_activity_kind, m.device_intensity
        FROM activity_minute m CROSS JOIN source s ON s.id = m.source_id
        WHERE \(condition) ORDER BY m.minute, m.source_id
        """
    }
}
