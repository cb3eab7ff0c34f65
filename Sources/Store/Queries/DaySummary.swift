import Foundation
import Model

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
