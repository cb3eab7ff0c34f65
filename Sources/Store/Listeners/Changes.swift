import Foundation

/// One event of a listener: its whole current result, and how it differs from the result of
/// the listener's previous event.
///
/// Elements are matched by id: an element whose id was not in the previous result is *added*,
/// one whose id is still there with other values is *updated*, one whose id is gone is
/// *removed*. A log edited into or out of a listener's window (e.g. its time moved to another
/// Day) is added to or removed from that listener's result.
public struct Changes<Element: Identifiable & Equatable & Sendable>: Sendable, Equatable {
    /// The current result, in the order of the query (logs by time, Days newest first).
    public var result: [Element]
    /// Elements of ``result`` that were not in the previous result, in result order.
    public var added: [Element]
    /// Elements of ``result`` whose values changed, as they are now, in result order.
    public var updated: [Element]
    /// Elements of the previous result that are gone, as they were, in their previous order.
    public var removed: [Element]
    /// Whether this is the first event, sent when the listener is registered. It carries the
    /// result only: ``added``, ``updated`` and ``removed`` are empty.
    public var isInitial: Bool

    /// Whether nothing was added, updated or removed (true for the initial event).
    public var isEmpty: Bool { added.isEmpty && updated.isEmpty && removed.isEmpty }

    /// The changes from `previous` (nil for the initial event) to `current`.
    init(from previous: [Element]?, to current: [Element]) {
        result = current
        isInitial = previous == nil
        guard let previous else {
            added = []
            updated = []
            removed = []
            return
        }
        let before = Dictionary(previous.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let now = Set(current.map(\.id))
        added = current.filter { before[$0.id] == nil }
        updated = current.filter { element in before[element.id].map { $0 != element } ?? false }
        removed = previous.filter { !now.contains($0.id) }
    }
}

/// The event of an ``ListenerTopic/all(_:)`` listener: the changes of every kind of log in its
/// window, and of the summaries of the Days the window covers, from one commit.
public struct StoreChanges: Sendable, Equatable {
    public var glucose: Changes<Stored<GlucoseLog>>
    public var insulin: Changes<Stored<InsulinLog>>
    public var meals: Changes<Stored<MealLog>>
    public var exercise: Changes<Stored<ExerciseLog>>
    public var illness: Changes<Stored<IllnessEpisode>>
    public var stress: Changes<Stored<StressEpisode>>
    /// The summaries of the Days the window covers, newest first.
    public var days: Changes<DaySummary>

    /// Whether this is the first event, sent when the listener is registered.
    public var isInitial: Bool { glucose.isInitial }

    /// The kinds of log that were added, updated or removed (empty for the initial event).
    public var changedKinds: Set<LogKind> {
        let kinds: [(LogKind, Bool)] = [
            (.glucose, glucose.isEmpty), (.insulin, insulin.isEmpty), (.meal, meals.isEmpty),
            (.exercise, exercise.isEmpty), (.illness, illness.isEmpty), (.stress, stress.isEmpty),
        ]
        return Set(kinds.filter { !$0.1 }.map(\.0))
    }
}

extension Stored: Identifiable {}

extension DaySummary: Identifiable {
    /// A Day is identified by its date.
    public var id: DayDate { date }
}
