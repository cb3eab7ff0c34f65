import Foundation
import GRDB
import Model

/// The kinds of log a Day holds, one table each.
public enum LogKind: String, Sendable, CaseIterable, CustomStringConvertible {
    case glucose, insulin, meal, exercise, illness, stress

    public var description: String { rawValue }

    /// The table of the kind.
    var table: String { rawValue }

    /// The column holding the instant that places a log on its Day.
    var timeColumn: String {
        switch self {
        case .illness, .stress: "start_time"
        default: "time"
        }
    }

    /// Whether rows of this kind may come from a device (`source_id`, `device_record_key`).
    var hasProvenance: Bool { self == .glucose || self == .exercise }
}

/// The id of a stored log of type `Log`: a `LogID<MealLog>` cannot be passed where a
/// `LogID<InsulinLog>` is expected.
public struct LogID<Log: LogEntry>: Hashable, Sendable, CustomStringConvertible {
    /// The row's `id` in the kind's table.
    public let rawValue: Int64

    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    public var description: String { "\(Log.kind) #\(rawValue)" }
}

/// A log as the store holds it: its id, the Day it is linked to, its values, and the device it
/// came from when it was imported.
///
/// The log's properties can be read on the stored value directly (`stored.time`, `stored.carbs`).
@dynamicMemberLookup
public struct Stored<Log: LogEntry>: Sendable, Equatable {
    public var id: LogID<Log>
    /// The Day the log is linked to: the local date of its time (an episode's start) in the
    /// store's zone.
    public var day: DayDate
    public var log: Log
    /// The device the log was imported from, and the device's key for it; nil for a log
    /// entered in the app. Imported logs are read-only (see ``StoreError/importedLogIsReadOnly(kind:id:source:)``).
    public var source: DeviceSource?
    public var recordKey: String?

    /// Whether glucobridge imported the log from a device.
    public var isImported: Bool { source != nil }

    public subscript<Value>(dynamicMember keyPath: KeyPath<Log, Value>) -> Value {
        log[keyPath: keyPath]
    }
}

/// A value the store keeps as one row of a log table, linked to the Day of its ``time``.
///
/// Only the store's own log types conform: ``GlucoseLog``, ``InsulinLog``, ``MealLog``,
/// ``ExerciseLog``, ``IllnessEpisode`` and ``StressEpisode``. Each declares its columns once, in
/// its ``columns``, which only the store can make, so the protocol is closed to other types and
/// says nothing of the database library underneath. Write logs through ``SharedStore/add(_:)``
/// and ``SharedStore/update(_:with:)``; the store adds `id` and `day_id`, so a log cannot be
/// written without its Day.
public protocol LogEntry: Sendable, Equatable {
    static var kind: LogKind { get }
    /// The instant that places the log on its Day (an episode's start).
    var time: Date { get }
    /// How the store reads, writes and checks the log's row.
    static var columns: LogColumns<Self> { get }
}

/// How the store reads, writes and checks one kind of log. Opaque outside the store: only the
/// store makes one, for each of its log types.
public struct LogColumns<Log: LogEntry>: Sendable {
    /// Reads a log from its row.
    let read: @Sendable (Row) throws -> Log
    /// Writes the log's own columns, and those the store derives from it when it is written
    /// (glucose: the tag, from the thresholds in force).
    let write: @Sendable (Log, inout PersistenceContainer, GlucoseThresholds) -> Void
    /// Throws ``StoreError/invalidLog(kind:reason:)`` when a value is one the schema refuses
    /// (naming any instant in the zone given, the store's).
    let validate: @Sendable (Log, TimeZone) throws(StoreError) -> Void
}

/// Logs that can be marked favourite: meals and exercise sessions.
///
/// A favourite log is linked to a `favourite` row named after it (created when the log is
/// marked, removed when nothing links to it any more). Fetch them with
/// ``SharedStore/favourites(_:)``, sorted by name.
public protocol FavouritableLog: LogEntry {
    var name: String { get }
    /// Whether the log is a favourite. Written by ``SharedStore/add(_:)`` and
    /// ``SharedStore/update(_:with:)``, read back from the store.
    var isFavourite: Bool { get set }
}

// MARK: - Glucose

/// A glucose value entered in the app (a meter reading).
///
/// The store keeps the value in mg/dL with the unit it was entered in, and computes its tag
/// from the thresholds in force when it is written (and again when they change).
public struct GlucoseLog: LogEntry {
    public static let kind = LogKind.glucose
    public static let columns = LogColumns<GlucoseLog>(
        read: GlucoseLog.init(row:),
        write: { log, container, thresholds in
            log.encode(to: &container)
            container["tag"] = thresholds.storeTag(mgdl: log.mgdl, unit: log.unit).rawValue
        },
        validate: { log, zone throws(StoreError) in try log.validate(in: zone) })
    public var time: Date
    /// The value in ``unit``.
    public var value: Double
    public var unit: GlucoseUnit
    public var kind: ReadingKind
    /// The tag the store computed; nil on a log not read from the store. Ignored when writing.
    public internal(set) var tag: GlucoseTag?

    public init(time: Date, value: Double, unit: GlucoseUnit = .milligramsPerDeciliter, kind: ReadingKind = .fingerstick) {
        self.time = time
        self.value = value
        self.unit = unit
        self.kind = kind
    }

    /// The value in mg/dL, as stored.
    public var mgdl: Double { unit.milligramsPerDeciliter(value) }

    init(row: Row) throws {
        let unit: GlucoseUnit = try Decode.value(row, "unit", "glucose.unit")
        let mgdl: Double = row["mgdl"]
        // mmol/L back from mg/dL, without the last-bit noise of the round trip.
        let value = unit == .milligramsPerDeciliter ? mgdl : (mgdl / GlucoseUnit.mgdlPerMmol * 1e6).rounded() / 1e6
        self.init(
            time: try Decode.instant(row, "time", "glucose.time"), value: value, unit: unit,
            kind: try Decode.value(row, "kind", "glucose.kind"))
        tag = try Decode.value(row, "tag", "glucose.tag")
    }

    func encode(to container: inout PersistenceContainer) {
        container["time"] = StoreTime.string(time)
        container["mgdl"] = mgdl
        container["unit"] = unit.rawValue
        container["kind"] = kind.rawValue
    }

    func validate(in zone: TimeZone) throws(StoreError) {
        guard mgdl.isFinite, mgdl > 0, mgdl < 1000 else {
            throw .invalidLog(kind: .glucose, reason: "\(value) \(unit.rawValue) is not within 0 < mg/dL < 1000")
        }
    }
}

// MARK: - Insulin

/// An insulin dose, in units.
public struct InsulinLog: LogEntry {
    public static let kind = LogKind.insulin
    public static let columns = LogColumns<InsulinLog>(
        read: InsulinLog.init(row:), write: { log, container, _ in log.encode(to: &container) },
        validate: { log, zone throws(StoreError) in try log.validate(in: zone) })
    public var time: Date
    public var units: Double

    public init(time: Date, units: Double) {
        self.time = time
        self.units = units
    }

    init(row: Row) throws {
        self.init(time: try Decode.instant(row, "time", "insulin.time"), units: row["units"])
    }

    func encode(to container: inout PersistenceContainer) {
        container["time"] = StoreTime.string(time)
        container["units"] = units
    }

    func validate(in zone: TimeZone) throws(StoreError) {
        guard units.isFinite, units > 0, units < 1000 else {
            throw .invalidLog(kind: .insulin, reason: "\(units) units is not within 0 < units < 1000")
        }
    }
}

// MARK: - Meal

/// A meal; nutrients in grams.
public struct MealLog: FavouritableLog {
    public static let kind = LogKind.meal
    public static let columns = LogColumns<MealLog>(
        read: MealLog.init(row:), write: { log, container, _ in log.encode(to: &container) },
        validate: { log, zone throws(StoreError) in try log.validate(in: zone) })
    public var time: Date
    public var name: String
    public var carbs: Double
    public var protein: Double
    public var fat: Double
    public var isFavourite: Bool

    public init(time: Date, name: String = "", carbs: Double = 0, protein: Double = 0, fat: Double = 0, isFavourite: Bool = false) {
        self.time = time
        self.name = name
        self.carbs = carbs
        self.protein = protein
        self.fat = fat
        self.isFavourite = isFavourite
    }

    init(row: Row) throws {
        self.init(
            time: try Decode.instant(row, "time", "meal.time"), name: row["name"], carbs: row["carbs_g"],
            protein: row["protein_g"], fat: row["fat_g"], isFavourite: row["favourite_id"] as Int64? != nil)
    }

    func encode(to container: inout PersistenceContainer) {
        container["time"] = StoreTime.string(time)
        container["name"] = name
        container["carbs_g"] = carbs
        container["protein_g"] = protein
        container["fat_g"] = fat
    }

    func validate(in zone: TimeZone) throws(StoreError) {
        for (label, grams) in [("carbs", carbs), ("protein", protein), ("fat", fat)] {
            guard grams.isFinite, grams >= 0 else {
                throw .invalidLog(kind: .meal, reason: "\(label) of \(grams) g is not a weight ≥ 0")
            }
        }
        if isFavourite, name.isEmpty {
            throw .invalidLog(kind: .meal, reason: "a favourite meal needs a name to be found by")
        }
    }
}

// MARK: - Exercise

/// How hard an exercise session was.
public enum ExerciseIntensity: String, Sendable, CaseIterable {
    case light, moderate, vigorous
}

/// An exercise session: its start, name, duration and intensity, and its distance and energy
/// when the device logged them or the app entered them.
public struct ExerciseLog: FavouritableLog {
    public static let kind = LogKind.exercise
    public static let columns = LogColumns<ExerciseLog>(
        read: ExerciseLog.init(row:), write: { log, container, _ in log.encode(to: &container) },
        validate: { log, zone throws(StoreError) in try log.validate(in: zone) })
    /// The start of the session.
    public var time: Date
    /// E.g. `Walking`, `Running`, `Cycling`; not empty.
    public var name: String
    public var duration: TimeInterval
    public var intensity: ExerciseIntensity
    public var isFavourite: Bool
    /// Metres; nil when none was logged.
    public var distance: Double?
    /// kJ; nil when none was logged.
    public var energy: Double?

    public init(
        time: Date, name: String, duration: TimeInterval, intensity: ExerciseIntensity, isFavourite: Bool = false,
        distance: Double? = nil, energy: Double? = nil
    ) {
        self.time = time
        self.name = name
        self.duration = duration
        self.intensity = intensity
        self.isFavourite = isFavourite
        self.distance = distance
        self.energy = energy
    }

    init(row: Row) throws {
        self.init(
            time: try Decode.instant(row, "time", "exercise.time"), name: row["name"],
            duration: row["duration_seconds"], intensity: try Decode.value(row, "intensity", "exercise.intensity"),
            isFavourite: row["favourite_id"] as Int64? != nil, distance: row["distance_m"], energy: row["energy_kj"])
    }

    func encode(to container: inout PersistenceContainer) {
        container["time"] = StoreTime.string(time)
        container["name"] = name
        container["duration_seconds"] = duration
        container["intensity"] = intensity.rawValue
        container["distance_m"] = distance
        container["energy_kj"] = energy
    }

    func validate(in zone: TimeZone) throws(StoreError) {
        guard !name.isEmpty else { throw .invalidLog(kind: .exercise, reason: "an exercise needs a name") }
        guard duration.isFinite, duration >= 0 else {
            throw .invalidLog(kind: .exercise, reason: "a duration of \(duration) s is not ≥ 0")
        }
        if let distance, !(distance.isFinite && distance >= 0) {
            throw .invalidLog(kind: .exercise, reason: "a distance of \(distance) m is not ≥ 0")
        }
        if let energy, !(energy.isFinite && energy >= 0) {
            throw .invalidLog(kind: .exercise, reason: "an energy of \(energy) kJ is not ≥ 0")
        }
    }
}

// MARK: - Episodes

/// An illness or stress episode: it starts, and later ends. An episode without an end is
/// *open*; the store holds at most one open episode of each kind.
public protocol EpisodeEntry: LogEntry {
    var start: Date { get set }
    /// nil while the episode lasts.
    var end: Date? { get set }
    init(start: Date, end: Date?)
}

extension LogColumns where Log: EpisodeEntry {
    /// The columns of an episode kind.
    static var episode: LogColumns<Log> {
        LogColumns(
            read: Log.init(row:), write: { log, container, _ in log.encode(to: &container) },
            validate: { log, zone throws(StoreError) in try log.validate(in: zone) })
    }
}

extension EpisodeEntry {
    public var time: Date { start }
    /// Whether the episode has started and not ended.
    public var isOpen: Bool { end == nil }
    /// `end − start`; nil while the episode is open.
    public var duration: TimeInterval? { end.map { $0.timeIntervalSince(start) } }
    /// How long the episode has lasted at `now`: `end − start`, or `now − start` while it is open.
    public func duration(at now: Date) -> TimeInterval { (end ?? now).timeIntervalSince(start) }

    init(row: Row) throws {
        self.init(
            start: try Decode.instant(row, "start_time", "\(Self.kind).start_time"),
            end: try Decode.optionalInstant(row, "end_time", "\(Self.kind).end_time"))
    }

    func encode(to container: inout PersistenceContainer) {
        container["start_time"] = StoreTime.string(start)
        container["end_time"] = end.map(StoreTime.string)
    }

    func validate(in zone: TimeZone) throws(StoreError) {
        if let end {
            guard StoreTime.representable.contains(end) else {
                throw .invalidLog(kind: Self.kind, reason: "its end is outside years 0001–9999")
            }
            // Compared as stored, to the millisecond.
            guard StoreTime.string(end) >= StoreTime.string(start) else {
                throw .invalidLog(
                    kind: Self.kind,
                    reason:
                        "it ends at \(LocalTimeText.text(end, zone: zone, seconds: true)), before it starts at \(LocalTimeText.named(start, zone: zone, seconds: true))"
                )
            }
        }
    }
}

/// An illness episode.
public struct IllnessEpisode: EpisodeEntry {
    public static let kind = LogKind.illness
    public static let columns = LogColumns<IllnessEpisode>.episode
    public var start: Date
    public var end: Date?
    public init(start: Date, end: Date? = nil) {
        self.start = start
        self.end = end
    }
}

/// A stress episode.
public struct StressEpisode: EpisodeEntry {
    public static let kind = LogKind.stress
    public static let columns = LogColumns<StressEpisode>.episode
    public var start: Date
    public var end: Date?
    public init(start: Date, end: Date? = nil) {
        self.start = start
        self.end = end
    }
}

// MARK: - Writing

/// A log with the columns the store adds: its id (nil to insert) and its Day.
struct LogRow<Log: LogEntry>: PersistableRecord {
    static var databaseTableName: String { Log.kind.table }
    var id: Int64?
    var dayID: Int64
    var log: Log
    var thresholds: GlucoseThresholds

    func encode(to container: inout PersistenceContainer) throws {
        Log.columns.write(log, &container, thresholds)
        container["day_id"] = dayID
        if let id { container["id"] = id }
    }
}
