import Foundation

/// Collects the events of a listener (delivered on any thread) and hands them out in order,
/// waiting for each up to a timeout.
public final class Inbox<Event: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [Event] = []
    private var errors: [any Error] = []
    private let arrived = DispatchSemaphore(value: 0)

    public init() {}

    public func receive(_ event: Event) {
        lock.lock()
        events.append(event)
        lock.unlock()
        arrived.signal()
    }

    /// Records a failure of the listener; ``next(timeout:)`` throws it in its turn.
    public func fail(_ error: any Error) {
        lock.lock()
        errors.append(error)
        lock.unlock()
        arrived.signal()
    }

    /// The next event, waiting up to `timeout` seconds for it. The timeout only bounds a failing
    /// test; it does not measure speed.
    public func next(timeout: TimeInterval = 5) throws -> Event {
        guard arrived.wait(timeout: .now() + timeout) == .success else {
            throw InboxError.noEvent(waitedSeconds: timeout)
        }
        lock.lock()
        defer { lock.unlock() }
        if !errors.isEmpty { throw errors.removeFirst() }
        return events.removeFirst()
    }

    /// Events (and failures) received and not yet taken.
    public var pending: Int {
        lock.lock()
        defer { lock.unlock() }
        return events.count + errors.count
    }
}

public enum InboxError: Error, CustomStringConvertible {
    case noEvent(waitedSeconds: TimeInterval)

    public var description: String {
        switch self {
        case .noEvent(let seconds): "no event within \(seconds) s"
        }
    }
}
