import Foundation
import GRDB

/// What a listener watches, and the type of its events: pass one to
/// ``SharedStore/listen(to:onError:onEvent:)`` or ``SharedStore/events(of:)``.
///
/// ```swift
/// store.listen(to: .glucose(.day(today))) { (changes: Changes<Stored<GlucoseLog>>) in … }
/// store.listen(to: .days(last: 14)) { (changes: Changes<DaySummary>) in … }
/// store.listen(to: .all(.day(today))) { (changes: StoreChanges) in … }
/// ```
public struct ListenerTopic<Event: Sendable>: Sendable {
    /// Starts a GRDB observation on the store's connections whose events are delivered on `queue`.
    let start:
        @Sendable (
            _ store: SharedStore, _ queue: DispatchQueue,
            _ deliver: @escaping @Sendable (Result<Event, StoreError>) -> Void
        ) -> AnyDatabaseCancellable

    /// A topic that fetches a value in one read, re-fetches it after every commit that touches
    /// what it read, drops values equal to the last one, and makes each new value an event with
    /// the value before it (nil for the first).
    static func observing<Value: Equatable & Sendable>(
        _ fetch: @escaping @Sendable (_ zone: TimeZone) -> @Sendable (Database) throws -> Value,
        event: @escaping @Sendable (_ previous: Value?, _ current: Value) -> Event
    ) -> Self {
        Self { store, queue, deliver in
            let last = LastValue<Value>()
            return ValueObservation.tracking(fetch(store.timeZone)).removeDuplicates().start(
                in: store.database, scheduling: .async(onQueue: queue),
                onError: { error in
                    deliver(.failure(StoreError(error, path: store.path, busyTimeout: store.busyTimeout)))
                },
                onChange: { value in deliver(.success(event(last.exchange(value), value))) })
        }
    }
}

extension ListenerTopic {
    /// The logs of one kind in `window`, by time: `.logs(MealLog.self, in: .day(today))`.
    public static func logs<Log: LogEntry>(_ type: Log.Type, in window: LogWindow) -> Self
    where Event == Changes<Stored<Log>> {
        .observing({ _ in { db in try SharedStore.fetchLogs(Log.self, in: window, db) } }, event: Changes.init)
    }

    /// Glucose logs (imported readings and app-entered values) in `window`, by time.
    public static func glucose(_ window: LogWindow) -> Self where Event == Changes<Stored<GlucoseLog>> {
        .logs(GlucoseLog.self, in: window)
    }

    /// Insulin doses in `window`, by time.
    public static func insulin(_ window: LogWindow) -> Self where Event == Changes<Stored<InsulinLog>> {
        .logs(InsulinLog.self, in: window)
    }

    /// Meals in `window`, by time.
    public static func meals(_ window: LogWindow) -> Self where Event == Changes<Stored<MealLog>> {
        .logs(MealLog.self, in: window)
    }

    /// Exercise sessions in `window`, by start.
    public static func exercise(_ window: LogWindow) -> Self where Event == Changes<Stored<ExerciseLog>> {
        .logs(ExerciseLog.self, in: window)
    }

    /// Illness episodes starting in `window`, by start.
    public static func illness(_ window: LogWindow) -> Self where Event == Changes<Stored<IllnessEpisode>> {
        .logs(IllnessEpisode.self, in: window)
    }

    /// Stress episodes starting in `window`, by start.
    public static func stress(_ window: LogWindow) -> Self where Event == Changes<Stored<StressEpisode>> {
        .logs(StressEpisode.self, in: window)
    }

    /// The `count` most recent Days with all the traits in `filter` and their summaries, newest
    /// first: the result of ``SharedStore/recentDays(_:filter:)``. A Day is updated when its
    /// summary changes (a log added to it, its favourite mark, an episode overlapping it).
    public static func days(last count: Int, filter: DayFilter = []) -> Self where Event == Changes<DaySummary> {
        .observing({ _ in { db in try SharedStore.fetchSummaries(filter, limit: max(count, 0), db) } }, event: Changes.init)
    }

    /// Every kind of log in `window`, and the summaries of the Days the window covers (for
    /// `.between(from:to:)`: the local dates of `from` through the instant before `to`), in one
    /// event per commit that changes any of them.
    public static func all(_ window: LogWindow) -> Self where Event == StoreChanges {
        .observing(
            { zone in { db in try AllLogs(window, zone: zone, db) } },
            event: { previous, current in
                StoreChanges(
                    glucose: Changes(from: previous?.glucose, to: current.glucose),
                    insulin: Changes(from: previous?.insulin, to: current.insulin),
                    meals: Changes(from: previous?.meals, to: current.meals),
                    exercise: Changes(from: previous?.exercise, to: current.exercise),
                    illness: Changes(from: previous?.illness, to: current.illness),
                    stress: Changes(from: previous?.stress, to: current.stress),
                    days: Changes(from: previous?.days, to: current.days))
            })
    }
}

/// The result of an ``ListenerTopic/all(_:)`` listener, read in one transaction.
struct AllLogs: Equatable, Sendable {
    var glucose: [Stored<GlucoseLog>]
    var insulin: [Stored<InsulinLog>]
    var meals: [Stored<MealLog>]
    var exercise: [Stored<ExerciseLog>]
    var illness: [Stored<IllnessEpisode>]
    var stress: [Stored<StressEpisode>]
    var days: [DaySummary]

    init(_ window: LogWindow, zone: TimeZone, _ db: Database) throws {
        glucose = try SharedStore.fetchLogs(GlucoseLog.self, in: window, db)
        insulin = try SharedStore.fetchLogs(InsulinLog.self, in: window, db)
        meals = try SharedStore.fetchLogs(MealLog.self, in: window, db)
        exercise = try SharedStore.fetchLogs(ExerciseLog.self, in: window, db)
        illness = try SharedStore.fetchLogs(IllnessEpisode.self, in: window, db)
        stress = try SharedStore.fetchLogs(StressEpisode.self, in: window, db)
        switch window {
        case .day(let day):
            days = try SharedStore.fetchSummaries([], from: day, through: day, limit: nil, db)
        case .between(let from, let to):
            let range = StoreTime.representable
            let first = from.map { DayDate(instant: min(max($0, range.lowerBound), range.upperBound), timeZone: zone) }
            let last = to.map {
                DayDate(instant: max(min($0, range.upperBound).addingTimeInterval(-0.001), range.lowerBound), timeZone: zone)
            }
            days = try SharedStore.fetchSummaries([], from: first, through: last, limit: nil, db)
        }
    }
}

/// The last value an observation delivered; GRDB delivers one value at a time, the lock makes
/// that explicit.
private final class LastValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value?

    /// Stores `new` and returns the value it replaces.
    func exchange(_ new: Value) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        let old = value
        value = new
        return old
    }
}
