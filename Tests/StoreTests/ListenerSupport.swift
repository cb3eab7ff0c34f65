import Foundation
import Store
import XCTest

/// Collects a listener's events and hands them out in order, waiting for each up to a timeout.
final class Inbox<Event: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [Event] = []
    private var errors: [StoreError] = []
    private let arrived = DispatchSemaphore(value: 0)

    func receive(_ event: Event) {
        lock.lock()
        events.append(event)
        lock.unlock()
        arrived.signal()
    }

    func fail(_ error: StoreError) {
        lock.lock()
        errors.append(error)
        lock.unlock()
        arrived.signal()
    }

    /// The next event, waiting up to `timeout` seconds for it. The timeout is generous: it only
    /// bounds a failing test, it does not measure speed.
    func next(timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line) throws -> Event {
        guard arrived.wait(timeout: .now() + timeout) == .success else {
            XCTFail("no event within \(timeout) s", file: file, line: line)
            throw InboxError.timedOut
        }
        lock.lock()
        defer { lock.unlock() }
        if !errors.isEmpty { throw errors.removeFirst() }
        return events.removeFirst()
    }

    /// Events received and not yet taken.
    var pending: Int {
        lock.lock()
        defer { lock.unlock() }
        return events.count + errors.count
    }
}

enum InboxError: Error {
    case timedOut
}

extension SharedStore {
    /// Registers a listener whose events go to a new inbox.
    func listen<Event>(to topic: ListenerTopic<Event>) throws -> (StoreListener, Inbox<Event>) {
        let inbox = Inbox<Event>()
        let listener = try listen(to: topic, onError: inbox.fail, onEvent: inbox.receive)
        return (listener, inbox)
    }
}
