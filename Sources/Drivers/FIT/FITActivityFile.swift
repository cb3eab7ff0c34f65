import Foundation
import Model

/// A session or lap a FIT activity file logged, its fields scaled to units.
package struct FITSession: Sendable, Equatable {
    /// The profile's `message_index`, or the session's position in the file.
    package var index: Int
    package var sport: Int64?
    package var start: Date
    /// `total_elapsed_time`, s.
    package var elapsed: TimeInterval
    /// `total_timer_time`, s.
    package var timer: TimeInterval?
    /// `total_distance`, m.
    package var distance: Double?
    /// `total_calories`, kcal.
    package var calories: Double?
    package var averageHeartRate: Double?
    package var maximumHeartRate: Double?

    /// The exercise log's name for the sport.
    package var kind: ExerciseKind {
        switch sport {
        case FITProfile.Sport.running: .running
        case FITProfile.Sport.cycling, FITProfile.Sport.eBiking: .cycling
        case FITProfile.Sport.walking: .walking
        case FITProfile.Sport.hiking: .hiking
        case FITProfile.Sport.swimming: .swimming
        case FITProfile.Sport.rowing: .rowing
        default: .activity
        }
    }
}

/// What a FIT activity or monitoring file holds for the store: who wrote it, its sessions and its
/// samples. Device-neutral: the import grades intensities and makes minutes from it.
public struct FITActivityFile: Sendable {
    /// The file's identity as a record source: family `fit`, serial `SERIAL/TYPE/TIME_CREATED`
    /// (`3882015183/activity/2015-08-15T17:32:41Z`; the file CRC stands in for a missing
    /// `time_created`), so a file read again, from any path, adds nothing; the model names maker
    /// and product.
    package var source: DeviceSource
    /// The `file_id` type (4 activity, 15 monitoring_a, 32 monitoring_b).
    package var fileType: Int64
    package var timeCreated: Date?
    /// The watch's zone offset in seconds (`local_timestamp − timestamp`), and the instant it was read at.
    package var zoneOffset: (seconds: Int64, at: Date)?
    package var sessions: [FITSession]
    package var samples: [ActivitySample]
    /// Messages read, of every kind.
    package var messagesRead: Int
    /// Values read but not used, by reason.
    package var events: [ImportEvent]

    /// README's device table: what writes the files, and what is stored.
    package static let devices = "FIT files: Garmin watches and bike computers, and other devices that write FIT"
    package static let summary =
        "activity files (`GARMIN/Activity/*.fit`): each session an Exercise log (sport, start, duration, distance, energy, intensity graded from its minutes), "
        + "records as activity minutes; monitoring files (`GARMIN/Monitor/*.fit`): steps, heart rate, active energy, activity type and intensity as activity minutes; "
        + "read from a copied file or folder with `glucobridge replay`, both CRCs checked: see [FIT files](docs/devices.md#fit-files)"

    /// The longest monitoring interval steps are spread over, in seconds.
    static let longestInterval: UInt32 = 86_400

    /// The activity or monitoring content of `file`. Throws ``FITActivityFileError`` for a file of
    /// another type, or without a `file_id`.
    public init(_ file: FITFile) throws(FITActivityFileError) {
        let messages = file.messages
        guard let id = messages.first(where: { $0.global == FITProfile.Message.fileID }) else {
            throw .noFileID(file: file.name)
        }
        guard let type = id.integer(FITProfile.FileID.type) else { throw .noFileType(file: file.name) }
        guard [FITProfile.FileType.activity, FITProfile.FileType.monitoringA, FITProfile.FileType.monitoringB].contains(type) else {
            throw .unsupportedType(file: file.name, type: FITProfile.FileType.name(type))
        }
        fileType = type
        messagesRead = messages.count
        timeCreated = id.integer(FITProfile.FileID.timeCreated).flatMap(UInt32.init(exactly:)).map(FITDecoder.date)
        let serial = id.integer(FITProfile.FileID.serialNumber).map(String.init) ?? "unknown"
        let created =
            timeCreated.map { CivilDate.wallClock(Int64($0.timeIntervalSince1970)) + "Z" }
            ?? "no-time-created-crc-" + String(file.parts.first?.crc ?? 0, radix: 16)
        let maker = id.integer(FITProfile.FileID.manufacturer).map(FITProfile.manufacturer)
        let product = id.integer(FITProfile.FileID.product).map { "product \($0)" }
        let model = [maker, product].compactMap { $0 }.joined(separator: " ")
        source = DeviceSource(
            family: "fit", serial: "\(serial)/\(FITProfile.FileType.name(type))/\(created)", model: model.isEmpty ? nil : model)
        zoneOffset = nil
        sessions = []
        samples = []
        events = []
        if type == FITProfile.FileType.activity {
            readActivity(messages)
        } else {
            readMonitoring(messages)
        }
    }

    /// Sessions (or, without any, the laps as one session) and record samples.
    private mutating func readActivity(_ messages: [FITMessage]) {
        var laps: [FITSession] = []
        var recordsWithoutTime = 0
        var records: [FITMessage] = []
        for message in messages {
            switch message.global {
            case FITProfile.Message.session:
                if let session = Self.session(message, position: sessions.count, lap: false) { sessions.append(session) }
            case FITProfile.Message.lap:
                if let lap = Self.session(message, position: laps.count, lap: true) { laps.append(lap) }
            case FITProfile.Message.record:
                if message.timestamp == nil { recordsWithoutTime += 1 } else { records.append(message) }
            case FITProfile.Message.activity:
                if let time = message.timestamp, let local = message.integer(FITProfile.Activity.localTimestamp) {
                    zoneOffset = (local - Int64(time), FITDecoder.date(time))
                }
            default:
                break
            }
        }
        if sessions.isEmpty, let first = laps.first, let last = laps.last {
            let end = last.start.addingTimeInterval(last.elapsed)
            sessions = [
                FITSession(
                    index: 0, sport: first.sport, start: first.start, elapsed: end.timeIntervalSince(first.start),
                    timer: Self.sum(laps.map(\.timer)), distance: Self.sum(laps.map(\.distance)), calories: Self.sum(laps.map(\.calories)),
                    averageHeartRate: nil, maximumHeartRate: laps.compactMap(\.maximumHeartRate).max())
            ]
        }
        if recordsWithoutTime > 0 { events.append(ImportEvent(name: "fit-record-without-time", count: recordsWithoutTime)) }
        for record in records {
            let time = FITDecoder.date(record.timestamp!)
            let sport = sessions.last { $0.start <= time }?.sport ?? sessions.first?.sport
            samples.append(Self.sample(record, time: time, sport: sport))
        }
    }

    private static func sum(_ values: [Double?]) -> Double? {
        let known = values.compactMap { $0 }
        return known.isEmpty ? nil : known.reduce(0, +)
    }

    private static func session(_ message: FITMessage, position: Int, lap: Bool) -> FITSession? {
        typealias Field = FITProfile.Session
        guard let elapsed = message.scaled(Field.totalElapsedTime, scale: 1000) else { return nil }
        let start: Date
        if let time = message.integer(Field.startTime).flatMap(UInt32.init(exactly:)) {
            start = FITDecoder.date(time)
        } else if let end = message.timestamp {
            start = FITDecoder.date(end).addingTimeInterval(-elapsed)
        } else {
            return nil
        }
        return FITSession(
            index: message.integer(254).map { Int($0) } ?? position,
            sport: message.integer(lap ? FITProfile.Lap.sport : Field.sport), start: start, elapsed: elapsed,
            timer: message.scaled(Field.totalTimerTime, scale: 1000), distance: message.scaled(Field.totalDistance, scale: 100),
            calories: message.scaled(Field.totalCalories),
            averageHeartRate: message.scaled(lap ? FITProfile.Lap.avgHeartRate : Field.avgHeartRate),
            maximumHeartRate: message.scaled(lap ? FITProfile.Lap.maxHeartRate : Field.maxHeartRate))
    }

    /// A record as a sample. Cadence is crank rpm for cycling; for running, walking and hiking the
    /// profile's rpm are strides (its `avg_running_cadence` is in strides/min), two steps each;
    /// for other sports it is left out, its unit unknown.
    private static func sample(_ record: FITMessage, time: Date, sport: Int64?) -> ActivitySample {
        typealias Field = FITProfile.Record
        let cycling = sport == FITProfile.Sport.cycling || sport == FITProfile.Sport.eBiking
        let stepping = [FITProfile.Sport.running, FITProfile.Sport.walking, FITProfile.Sport.hiking].contains(sport ?? -1)
        var cadence = record.scaled(Field.cadence)
        if let whole = cadence { cadence = whole + (record.scaled(Field.fractionalCadence, scale: 128) ?? 0) }
        let gait: Gait? = sport == FITProfile.Sport.running ? .running : stepping ? .walking : nil
        return ActivitySample(
            time: time, sensor: cycling ? .cycling : .watch, heartRate: record.scaled(Field.heartRate),
            cadence: cycling ? cadence : stepping ? cadence.map { $0 * 2 } : nil,
            speed: record.scaled(Field.enhancedSpeed, scale: 1000) ?? record.scaled(Field.speed, scale: 1000),
            totalDistance: record.scaled(Field.distance, scale: 100), gait: gait)
    }

    /// Monitoring messages as samples: the steps of each interval (the `steps` subfield of
    /// `cycles`, cumulative per activity type, differenced; a count that falls restarted from
    /// zero) spread evenly over the seconds of the interval, which runs from the message before
    /// to this one, and summed per UTC minute; heart rate at its message's time; active calories
    /// (cumulative per activity type) as one running total; the message's activity type and raw
    /// intensity as the minute's device values, as sent. `timestamp_16` counts on from the
    /// last full timestamp. Daily summaries (`duration_min` set) only give a time.
    private mutating func readMonitoring(_ messages: [FITMessage]) {
        typealias Field = FITProfile.Monitoring
        var reference: UInt32?
        var previous: UInt32?
        var steps: [Int64: Int64] = [:]
        var calories: [Int64: Int64] = [:]
        var stepsPerMinute: [Int64: Double] = [:]
        var gaitPerMinute: [Int64: Gait] = [:]
        var withoutTime = 0
        for message in messages {
            if message.global == FITProfile.Message.monitoringInfo, let time = message.timestamp,
                let local = message.integer(FITProfile.MonitoringInfo.localTimestamp)
            {
                zoneOffset = (local - Int64(time), FITDecoder.date(time))
            }
            var time = message.timestamp
            if message.global == FITProfile.Message.monitoring, time == nil,
                let low = message.integer(Field.timestamp16).flatMap(UInt16.init(exactly:)), let last = reference
            {
                time = last &+ UInt32((low &- UInt16(truncatingIfNeeded: last)))
            }
            let before = reference
            if let time { reference = time }
            guard message.global == FITProfile.Message.monitoring else { continue }
            guard let time else {
                withoutTime += 1
                continue
            }
            if message.integer(Field.durationMin) != nil { continue }
            let type =
                message.integer(Field.activityType)
                ?? message.field(Field.currentActivityTypeIntensity)?.values.first.flatMap(Self.firstByte).map { Int64($0 & 0x1F) }
            // The interval runs from the monitoring message before, else the last full time.
            let start = previous ?? before.map { min($0, time) } ?? time
            previous = time
            if let type, type == FITProfile.ActivityType.walking || type == FITProfile.ActivityType.running,
                let count = message.integer(Field.cycles)
            {
                let last = steps[type] ?? 0
                steps[type] = count
                let delta = count >= last ? count - last : count
                if delta > 0 {
                    spread(Double(delta), from: start, to: time, into: &stepsPerMinute)
                    let minute = Int64(time) / 60
                    gaitPerMinute[minute] = type == FITProfile.ActivityType.running ? .running : gaitPerMinute[minute] ?? .walking
                }
            }
            let date = FITDecoder.date(time)
            let device = Self.deviceValues(message, type: type)
            var carried = false
            if let type, let total = message.integer(Field.activeCalories) {
                calories[type] = total
                samples.append(
                    ActivitySample(
                        time: date, sensor: .watch,
                        totalEnergy: Double(calories.values.reduce(0, +)) * LoggedWorkout.kilojoulesPerKilocalorie, device: device))
                carried = true
            }
            if let rate = message.scaled(Field.heartRate) {
                samples.append(ActivitySample(time: date, sensor: .watch, heartRate: rate, device: carried ? nil : device))
                carried = true
            }
            if !carried, let device { samples.append(ActivitySample(time: date, sensor: .watch, device: device)) }
        }
        for (minute, count) in stepsPerMinute.sorted(by: { $0.key < $1.key }) {
            samples.append(
                ActivitySample(
                    time: FITDecoder.date(UInt32(minute * 60)), sensor: .watch, cadence: count, gait: gaitPerMinute[minute] ?? .walking))
        }
        if withoutTime > 0 { events.append(ImportEvent(name: "fit-monitoring-without-time", count: withoutTime)) }
    }

    /// A monitoring message's own activity type and raw `intensity` (field 28, else bits 5–7 of
    /// `current_activity_type_intensity`, its component in the FIT profile), as sent; nil for neither.
    private static func deviceValues(_ message: FITMessage, type: Int64?) -> DeviceMinuteValues? {
        let intensity =
            message.integer(FITProfile.Monitoring.intensity)
            ?? message.field(FITProfile.Monitoring.currentActivityTypeIntensity)?.values.first.flatMap(Self.firstByte).map { Int64($0 >> 5) }
        let kind = type.flatMap { UInt8(exactly: $0) }.map(Int.init)
        let level = intensity.flatMap { UInt8(exactly: $0) }.map(Int.init)
        return kind == nil && level == nil ? nil : DeviceMinuteValues(kind: kind, intensity: level)
    }

    private static func firstByte(_ value: FITValue) -> UInt8? {
        if case .bytes(let bytes) = value { return bytes.first }
        return value.integer.flatMap(UInt8.init(exactly:))
    }

    /// Adds `count` spread evenly over the FIT seconds (`start`, `end`] to the minutes they fall in
    /// (minutes counted from FIT's epoch, which starts on a whole UTC minute).
    /// An interval is at most a day: the counters restart daily, so the steps of a longer one
    /// (a watch not worn, a damaged time) are placed in its last day.
    private func spread(_ count: Double, from start: UInt32, to end: UInt32, into minutes: inout [Int64: Double]) {
        let start = max(start, end > Self.longestInterval ? end - Self.longestInterval : 0)
        guard end > start else {
            minutes[Int64(end) / 60, default: 0] += count
            return
        }
        let rate = count / Double(end - start)
        var second = Int64(start)
        while second < Int64(end) {
            let minute = second / 60
            let next = min((minute + 1) * 60, Int64(end))
            minutes[minute, default: 0] += rate * Double(next - second)
            second = next
        }
    }
}

/// A FIT file glucobridge does not import.
public enum FITActivityFileError: DriverError, Equatable {
    case noFileID(file: String)
    case noFileType(file: String)
    case unsupportedType(file: String, type: String)

    public var description: String {
        switch self {
        case .noFileID(let file): "\(file) has no file_id message: it does not say what it holds"
        case .noFileType(let file): "\(file): its file_id message has no file type"
        case .unsupportedType(let file, let type):
            "\(file) is a FIT \(type) file; glucobridge imports activity and monitoring files"
        }
    }
}
