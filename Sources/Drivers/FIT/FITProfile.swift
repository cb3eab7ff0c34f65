/// The parts of the FIT profile (the FIT SDK's Profile.xlsx, as `garmin-fit-sdk` 21.x on PyPI
/// carries it) that glucobridge reads: message and field numbers, and the scales and offsets of
/// the fields used. A value is `stored / scale - offset`.
package enum FITProfile {
    /// Field 253 of any message: `timestamp`, FIT seconds (UTC).
    package static let timestampField: UInt8 = 253

    /// Global message numbers.
    package enum Message {
        package static let fileID: UInt16 = 0
        package static let session: UInt16 = 18
        package static let lap: UInt16 = 19
        package static let record: UInt16 = 20
        package static let deviceInfo: UInt16 = 23
        package static let activity: UInt16 = 34
        package static let monitoring: UInt16 = 55
        package static let monitoringInfo: UInt16 = 103
    }

    /// `file_id` (0).
    package enum FileID {
        package static let type: UInt8 = 0
        package static let manufacturer: UInt8 = 1
        package static let product: UInt8 = 2
        package static let serialNumber: UInt8 = 3
        package static let timeCreated: UInt8 = 4
    }

    /// `session` (18) and `lap` (19): the fields of the same name have the same number, scale
    /// and unit in both, except heart rate and sport (`lap`'s are below).
    package enum Session {
        package static let startTime: UInt8 = 2
        package static let sport: UInt8 = 5
        package static let subSport: UInt8 = 6
        /// s, scale 1000.
        package static let totalElapsedTime: UInt8 = 7
        /// s, scale 1000.
        package static let totalTimerTime: UInt8 = 8
        /// m, scale 100.
        package static let totalDistance: UInt8 = 9
        /// kcal.
        package static let totalCalories: UInt8 = 11
        /// bpm.
        package static let avgHeartRate: UInt8 = 16
        package static let maxHeartRate: UInt8 = 17
    }

    package enum Lap {
        package static let avgHeartRate: UInt8 = 15
        package static let maxHeartRate: UInt8 = 16
        package static let sport: UInt8 = 25
    }

    /// `record` (20).
    package enum Record {
        /// bpm.
        package static let heartRate: UInt8 = 3
        /// rpm: crank revolutions, or strides (two steps) for running and walking.
        package static let cadence: UInt8 = 4
        /// m, scale 100 (the distance so far).
        package static let distance: UInt8 = 5
        /// m/s, scale 1000 (uint16).
        package static let speed: UInt8 = 6
        /// rpm, scale 128: the fraction of `cadence`.
        package static let fractionalCadence: UInt8 = 53
        /// m/s, scale 1000 (uint32).
        package static let enhancedSpeed: UInt8 = 73
    }

    /// `activity` (34).
    package enum Activity {
        /// The watch's local time at `timestamp`: FIT seconds read as a wall clock.
        package static let localTimestamp: UInt8 = 5
    }

    /// `monitoring` (55).
    package enum Monitoring {
        /// Cumulative per activity type; scale 2 as `cycles`, but its `steps` subfield (activity
        /// type walking or running) has scale 1, and is what is read.
        package static let cycles: UInt8 = 3
        package static let activityType: UInt8 = 5
        /// Cumulative per activity type, kcal.
        package static let activeCalories: UInt8 = 19
        /// Bits 0–4 the activity type, bits 5–7 the intensity (components of the profile).
        package static let currentActivityTypeIntensity: UInt8 = 24
        /// The low 16 bits of the time, FIT seconds, counted from the last full timestamp.
        package static let timestamp16: UInt8 = 26
        /// bpm.
        package static let heartRate: UInt8 = 27
        /// Scale 10 when written as this field; 0–7 as a component of field 24.
        package static let intensity: UInt8 = 28
        /// Minutes: set on a daily summary message.
        package static let durationMin: UInt8 = 29
    }

    /// `monitoring_info` (103).
    package enum MonitoringInfo {
        package static let localTimestamp: UInt8 = 0
    }

    /// The profile's `file` type values glucobridge reads.
    package enum FileType {
        package static let activity: Int64 = 4
        package static let monitoringA: Int64 = 15
        package static let monitoringB: Int64 = 32

        /// The profile's name of a file type.
        package static func name(_ type: Int64) -> String {
            switch type {
            case 1: "device"
            case 2: "settings"
            case 3: "sport"
            case 4: "activity"
            case 5: "workout"
            case 6: "course"
            case 9: "weight"
            case 10: "totals"
            case 11: "goals"
            case 14: "blood_pressure"
            case 15: "monitoring_a"
            case 20: "activity_summary"
            case 28: "monitoring_daily"
            case 32: "monitoring_b"
            case 34: "segment"
            default: "type \(type)"
            }
        }
    }

    /// The profile's `activity_type` values used by monitoring.
    package enum ActivityType {
        package static let running: Int64 = 1
        package static let cycling: Int64 = 2
        package static let swimming: Int64 = 5
        package static let walking: Int64 = 6
        package static let sedentary: Int64 = 8
    }

    /// The profile's `sport` values with a name of their own in the exercise log.
    package enum Sport {
        package static let generic: Int64 = 0
        package static let running: Int64 = 1
        package static let cycling: Int64 = 2
        package static let fitnessEquipment: Int64 = 4
        package static let swimming: Int64 = 5
        package static let training: Int64 = 10
        package static let walking: Int64 = 11
        package static let rowing: Int64 = 15
        package static let hiking: Int64 = 17
        package static let eBiking: Int64 = 21
    }

    /// The profile's `manufacturer` names of the makers of FIT devices seen most.
    package static func manufacturer(_ value: Int64) -> String {
        switch value {
        case 1: "garmin"
        case 13, 15: "dynastream"
        case 23: "suunto"
        case 32: "wahoo_fitness"
        case 89: "tacx"
        case 123: "polar"
        case 265: "strava"
        case 294: "coros"
        default: "manufacturer \(value)"
        }
    }
}
