import Foundation
import Model

/// What one ``SharedStore/record(_:)`` call did.
public struct ImportSummary: Sendable, Equatable, CustomStringConvertible {
    /// The `import_run` row written for this import.
    public var runID: Int64
    /// Records the device returned, whether readings or not.
    public var recordsRead: Int
    /// Readings stored by this import.
    public var added: Int
    /// Readings offered that the store already held (same source and record key), including a
    /// repeat of a reading within the batch.
    public var alreadyStored: Int
    /// Records read that were not offered as readings: `recordsRead − glucose.count`.
    public var skipped: Int
    /// The Days that received new readings, ascending.
    public var days: [DayDate]
    /// The earliest and latest instants among the readings offered; nil when none were.
    public var firstReading: Date?
    public var lastReading: Date?

    public var description: String {
        var text = "\(added) new, \(alreadyStored) already stored"
        if skipped > 0 { text += ", \(skipped) not readings" }
        return text
    }
}

/// A glucose row as the store holds it.
public struct StoredGlucose: Sendable, Equatable {
    public var id: Int64
    public var time: Date
    public var mgdl: Double
    /// The unit the value was reported in.
    public var unit: GlucoseUnit
    public var tag: GlucoseTag
    public var flag: RangeFlag?
    public var kind: ReadingKind
    public var trend: Trend?
    public var noise: Int?
    public var day: DayDate
    /// The device the reading came from; nil for a reading entered in the app.
    public var sourceFamily: String?
    public var sourceSerial: String?
    public var recordKey: String?
    public var deviceTime: Int64?
    public var displayTime: String?
    /// What the device recorded with the reading (a meter's meal or activity markers).
    public var note: String?
}

/// How hard an exercise session was.
public enum ExerciseIntensity: String, Sendable, CaseIterable {
    case light, moderate, vigorous
}

/// Every log of one Day, each kind sorted by time ascending (an episode's start), then by id.
public struct DayLogs: Sendable, Equatable {
    public var day: DayDate
    public var glucose: [Stored<GlucoseLog>]
    public var insulin: [Stored<InsulinLog>]
    public var meals: [Stored<MealLog>]
    public var exercise: [Stored<ExerciseLog>]
    public var illness: [Stored<IllnessEpisode>]
    public var stress: [Stored<StressEpisode>]
}

/// One Day and its summary, computed by SQLite.
public struct DaySummary: Sendable, Equatable {
    public var date: DayDate
    public var glucoseCount: Int
    /// The lowest, mean and highest glucose of the Day in mg/dL; nil when it has no readings.
    public var low: Double?
    public var average: Double?
    public var high: Double?
    /// Whether a reading of the Day is tagged hypo (level 1 or 2), or hyper.
    public var hadHypo: Bool
    public var hadHyper: Bool
    public var hadExercise: Bool
    public var isFavourite: Bool
    /// The number of readings of the Day with each tag (every tag is present, 0 when none).
    public var tagCounts: [GlucoseTag: Int]
    /// The Day's food totals, in grams (0 without meals).
    public var carbs: Double
    public var protein: Double
    public var fat: Double
    /// Whether a stress or illness episode overlaps the Day (its local midnight to the next, in
    /// the store's zone): started before the Day ends and not ended before it starts. An open
    /// episode overlaps every Day from its start on.
    public var hadStress: Bool
    public var hadIllness: Bool

    /// The share (0…1) of the Day's readings tagged `tag`; nil when the Day has no readings.
    /// With readings every 5 minutes, the share of the Day's time spent in that class.
    public func share(of tag: GlucoseTag) -> Double? {
        glucoseCount == 0 ? nil : Double(tagCounts[tag] ?? 0) / Double(glucoseCount)
    }

    /// The share of readings in range (time in range); nil when the Day has no readings.
    public var timeInRange: Double? { share(of: .inRange) }
}

/// Restricts ``SharedStore/recentDays(_:filter:)`` to Days with all of the chosen traits.
public struct DayFilter: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let hadHypo = DayFilter(rawValue: 1 << 0)
    public static let hadHyper = DayFilter(rawValue: 1 << 1)
    public static let hadExercise = DayFilter(rawValue: 1 << 2)
    /// A stress episode overlaps the Day.
    public static let hadStress = DayFilter(rawValue: 1 << 3)
    /// An illness episode overlaps the Day.
    public static let hadIllness = DayFilter(rawValue: 1 << 4)
    /// The Day is a favourite.
    public static let isFavourite = DayFilter(rawValue: 1 << 5)
}

/// An `import_run` row: one past import and its counts.
public struct ImportRun: Sendable, Equatable {
    public var id: Int64
    public var source: DeviceSource
    public var startedAt: Date
    public var finishedAt: Date
    public var mode: String
    public var origin: String?
    public var recordsRead: Int
    public var added: Int
    public var alreadyStored: Int
    public var skipped: Int
    public var clock: ClockReport
    public var events: [ImportEvent]
    public var notes: [String]
}
