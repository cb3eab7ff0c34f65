import Foundation

/// The kind of sensor an activity sample came from. It fixes the unit of
/// ``ActivitySample/cadence`` and how a session is named.
public enum ActivitySensor: String, Sendable, Codable, CaseIterable, Comparable {
    /// A heart-rate band or strap (Heart Rate service 0x180D, or a band's own heart rate).
    case heartRateBand = "heart-rate-band"
    /// A running or walking pod (Running Speed and Cadence 0x1814); cadence in steps/min.
    case runningPod = "running-pod"
    /// A bike sensor (Cycling Speed and Cadence 0x1816, or a Fitness Machine indoor bike);
    /// cadence in crank revolutions/min.
    case cycling
    /// Any other fitness machine (Fitness Machine 0x1826: treadmill, cross trainer, stepper,
    /// rower); cadence, when the machine reports one, in steps/min.
    case fitnessMachine = "fitness-machine"
    /// A watch or bike computer that recorded the activity itself (a FIT file), or a watch's step
    /// counter (a PineTime); cadence in steps/min.
    case watch

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Walking or running, as a running pod reports it (RSC Measurement flags, bit 2).
public enum Gait: String, Sendable, Codable, CaseIterable {
    case walking, running
}

/// One reading from an activity sensor: an instant and whatever the sensor measured then.
/// Fields a sensor does not measure are nil.
public struct ActivitySample: Sendable, Equatable, Codable {
    /// The instant of the reading, in UTC.
    public var time: Date
    public var sensor: ActivitySensor
    /// Heart rate in beats/min.
    public var heartRate: Double?
    /// Whether the sensor felt skin (Heart Rate Measurement flags bits 1–2: 3 = contact,
    /// 2 = no contact); nil when the sensor does not say. A heart rate read without contact is
    /// not used.
    public var skinContact: Bool?
    /// Steps/min, or crank revolutions/min for a ``ActivitySensor/cycling`` sensor.
    public var cadence: Double?
    /// Speed in metres per second.
    public var speed: Double?
    /// The sensor's running total of distance in metres (it may restart from 0).
    public var totalDistance: Double?
    /// The sensor's running total of energy expended in kJ (it may restart from 0).
    public var totalEnergy: Double?
    public var gait: Gait?
    /// The device's own activity kind and intensity for the sample, as sent, on the device's scale.
    public var device: DeviceMinuteValues?

    public init(
        time: Date, sensor: ActivitySensor, heartRate: Double? = nil, skinContact: Bool? = nil,
        cadence: Double? = nil, speed: Double? = nil, totalDistance: Double? = nil,
        totalEnergy: Double? = nil, gait: Gait? = nil, device: DeviceMinuteValues? = nil
    ) {
        self.time = time
        self.sensor = sensor
        self.heartRate = heartRate
        self.skinContact = skinContact
        self.cadence = cadence
        self.speed = speed
        self.totalDistance = totalDistance
        self.totalEnergy = totalEnergy
        self.gait = gait
        self.device = device
    }
}

/// A device's own per-minute activity values, as it sent them and on its own scale (a Huami
/// band's kind and intensity bytes; a FIT monitoring message's `activity_type` and `intensity`).
public struct DeviceMinuteValues: Sendable, Equatable, Codable {
    /// The device's activity kind code.
    public var kind: Int?
    /// The device's intensity.
    public var intensity: Int?

    public init(kind: Int? = nil, intensity: Int? = nil) {
        self.kind = kind
        self.intensity = intensity
    }

    /// The values of `later` where it has them, else these.
    public func updated(by later: DeviceMinuteValues?) -> DeviceMinuteValues {
        DeviceMinuteValues(kind: later?.kind ?? kind, intensity: later?.intensity ?? intensity)
    }
}

/// One UTC minute of activity: the means of the samples read during it.
public struct ActivityMinute: Sendable, Equatable, Codable {
    /// The first instant of the minute (UTC, whole minute).
    public var start: Date
    /// Mean heart rate in beats/min.
    public var heartRate: Double?
    /// Mean step cadence in steps/min (running pods, fitness machines).
    public var stepCadence: Double?
    /// Mean crank cadence in revolutions/min (bike sensors).
    public var crankCadence: Double?
    /// Mean speed in m/s.
    public var speed: Double?
    /// Metres covered during the minute.
    public var distance: Double?
    /// Energy expended during the minute, in kJ.
    public var energy: Double?
    /// The gait most samples of the minute reported.
    public var gait: Gait?
    /// The sensors that contributed to the minute.
    public var sensors: Set<ActivitySensor>
    /// How many samples the minute was computed from.
    public var sampleCount: Int
    /// The device's own kind and intensity for the minute: the last sample's that carried them.
    public var device: DeviceMinuteValues?
    /// The sums and counts the values came from, when the minute was computed from samples: the
    /// store combines them with another session's part of the same minute. Not encoded.
    public var tally: MinuteTally?

    private enum CodingKeys: String, CodingKey {
        case start, heartRate, stepCadence, crankCadence, speed, distance, energy, gait, sensors, sampleCount, device
    }

    public init(
        start: Date, heartRate: Double? = nil, stepCadence: Double? = nil, crankCadence: Double? = nil,
        speed: Double? = nil, distance: Double? = nil, energy: Double? = nil, gait: Gait? = nil,
        sensors: Set<ActivitySensor>, sampleCount: Int, device: DeviceMinuteValues? = nil
    ) {
        self.start = start
        self.heartRate = heartRate
        self.stepCadence = stepCadence
        self.crankCadence = crankCadence
        self.speed = speed
        self.distance = distance
        self.energy = energy
        self.gait = gait
        self.sensors = sensors
        self.sampleCount = sampleCount
        self.device = device
    }
}

extension ActivityMinute {
    /// The instants activity can be placed at, in seconds since 1970: years 0001–9999, as the
    /// store keeps instants.
    public static let representableSeconds = -62_135_596_800.0..<253_402_300_800.0

    /// The UTC minute holding `instant`, counted from 1970; nil outside ``representableSeconds``.
    public static func number(of instant: Date) -> Int64? {
        let seconds = instant.timeIntervalSince1970
        guard representableSeconds.contains(seconds) else { return nil }
        return CivilDate.floorDiv(Int64(seconds.rounded(.down)), 60)
    }
}

/// How hard an activity was, in the three bands of the physical-activity guidelines.
public enum ActivityIntensity: String, Sendable, Codable, CaseIterable, Comparable {
    case light, moderate, vigorous

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// The name an exercise session is logged under.
public enum ExerciseKind: String, Sendable, Codable, CaseIterable {
    case cycling = "Cycling"
    case running = "Running"
    case walking = "Walking"
    case hiking = "Hiking"
    case swimming = "Swimming"
    case rowing = "Rowing"
    case activity = "Activity"
}

/// An exercise session detected in a stream of activity minutes.
public struct ExerciseSession: Sendable, Equatable, Codable {
    /// The start of the first active minute, UTC.
    public var start: Date
    /// From the first to the last active minute, both included.
    public var minutes: Int
    public var kind: ExerciseKind
    /// The intensity of most of the session's active minutes.
    public var intensity: ActivityIntensity
    /// The active minutes of each intensity (short pauses inside the session are not counted).
    public var minutesByIntensity: [ActivityIntensity: Int]
    /// The key a re-import finds the session by: `exercise:` and the start minute in UTC
    /// (`exercise:2024-05-01T06:30Z`). Unique per source.
    public var recordKey: String

    public init(
        start: Date, minutes: Int, kind: ExerciseKind, intensity: ActivityIntensity,
        minutesByIntensity: [ActivityIntensity: Int]
    ) {
        self.start = start
        self.minutes = minutes
        self.kind = kind
        self.intensity = intensity
        self.minutesByIntensity = minutesByIntensity
        recordKey = Self.recordKey(start: start)
    }

    /// The duration the device measured, in seconds, when it logged the session itself (a FIT
    /// file's session); nil for a detected session.
    public var measuredDuration: TimeInterval?
    /// The distance the device logged for the session, in metres; nil when it logged none.
    public var distance: Double?
    /// The energy the device logged for the session, in kJ; nil when it logged none.
    public var energy: Double?

    /// The measured duration, else `minutes` in seconds.
    public var duration: TimeInterval { measuredDuration ?? TimeInterval(minutes * 60) }

    /// The minutes counted active (the sum of ``minutesByIntensity``).
    public var activeMinutes: Int { minutesByIntensity.values.reduce(0, +) }

    /// `exercise:YYYY-MM-DDTHH:MMZ` of the minute holding `start`; `exercise:out-of-range` for
    /// an instant outside years 0001–9999 (which the store refuses).
    public static func recordKey(start: Date) -> String {
        guard let minute = ActivityMinute.number(of: start) else { return "exercise:out-of-range" }
        return "exercise:" + CivilDate.wallClock(minute * 60).dropLast(3) + "Z"
    }
}

/// Everything one activity import hands to the store, written in one transaction: the minutes
/// (kept for plots) and the sessions (written as Exercise logs).
public struct ActivityBatch: Sendable {
    public var source: DeviceSource
    /// When the import started, by the host's clock.
    public var startedAt: Date
    /// How the sensor was read.
    public var mode: ImportMode
    /// Where the data came from: a capture path, or the Bluetooth address.
    public var origin: String?
    public var clock: ClockReport
    public var minutes: [ActivityMinute]
    public var sessions: [ExerciseSession]
    /// Samples the sensors sent, used or not.
    public var samplesRead: Int
    /// Samples read but not used, by reason (e.g. no skin contact).
    public var events: [ImportEvent]
    public var notes: [String]
    /// How far the device's stored history was read (stream → last record index), raised in the
    /// store with the minutes (a band's per-minute history: the next read starts after it).
    public var cursors: RecordCursors
    /// The services the device's activity was read through (`ble-hrs`, `huami`), kept in the
    /// store as the source's services when the source's family is the bus's (`ble`).
    public var services: [DeviceFamily] = []

    public init(
        source: DeviceSource, startedAt: Date, mode: ImportMode, origin: String?, clock: ClockReport,
        minutes: [ActivityMinute], sessions: [ExerciseSession], samplesRead: Int,
        events: [ImportEvent] = [], notes: [String] = [], cursors: RecordCursors = [:]
    ) {
        self.source = source
        self.startedAt = startedAt
        self.mode = mode
        self.origin = origin
        self.clock = clock
        self.minutes = minutes
        self.sessions = sessions
        self.samplesRead = samplesRead
        self.events = events
        self.notes = notes
        self.cursors = cursors
    }
}
