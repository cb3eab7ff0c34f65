/// The time limit of one import, shared by every replay it runs: once it has passed, the next
/// transfer or PDU throws `deadlinePassed` with the budget the import was given. A budget of
/// zero (or less) has always passed: the import stops before its first transfer, whatever the
/// clock or the machine's load.
package struct ReplayDeadline: Sendable {
    /// How long the import was given.
    package let budget: Duration
    /// When that time is up.
    package let instant: ContinuousClock.Instant

    /// A deadline `budget` from `start`.
    package init(budget: Duration, from start: ContinuousClock.Instant = .now) {
        self.budget = budget
        instant = start + budget
    }

    /// Whether the time is up.
    package var hasPassed: Bool { budget <= .zero || ContinuousClock.now >= instant }
}
