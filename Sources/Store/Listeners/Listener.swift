import Foundation
import GRDB

extension SharedStore {
    /// Registers a listener for `topic`: `onEvent` receives the current result at once, then a new
    /// result after every commit that changes it — commits through this store, through another
    /// connection, or by another program on the same file.
    ///
    /// - One event per committing transaction that changes the result: several logs written in
    ///   one transaction make one event; a commit that leaves the result as it was makes none.
    ///   The result is read again on the store's writer connection right after each of its
    ///   commits that touched a table the result reads (keep listened results small: a Day, a
    ///   few weeks).
    /// - Commits by other programs (or other connections) are noticed by polling SQLite's
    ///   `PRAGMA data_version` every ``SharedStore/changePollInterval`` on a connection of the
    ///   store's own, so they reach listeners within about that interval (250 ms by default).
    ///   Several such commits within one interval make one event covering all of them.
    /// - Events arrive one at a time, in order, on a private serial queue of the listener.
    ///
    /// The listener lasts until the returned handle is cancelled or released. When reading the
    /// result fails, `onError` receives the error once and the listener stops.
    ///
    /// - Throws: ``StoreError`` when the connection that notices other programs' commits cannot
    ///   be opened.
    public func listen<Event>(
        to topic: ListenerTopic<Event>,
        onError: @escaping @Sendable (StoreError) -> Void = { _ in },
        onEvent: @escaping @Sendable (Event) -> Void
    ) throws(StoreError) -> StoreListener {
        // Taken before the first read, so that no other program's commit falls between the two.
        try externalChanges.retain()
        let state = ListenerState(release: externalChanges)
        let queue = DispatchQueue(label: "glucobridge.store.listener")
        let cancellable = topic.start(self, queue) { result in
            guard state.isActive else { return }
            switch result {
            case .success(let event):
                onEvent(event)
            case .failure(let error):
                state.cancel()
                onError(error)
            }
        }
        state.attach(cancellable)
        return StoreListener(state)
    }

    /// The events of `topic` as an asynchronous sequence: each iteration registers a listener
    /// (see ``listen(to:onError:onEvent:)``) that lasts until the loop ends or its task is
    /// cancelled. Throws a ``StoreError`` when the listener fails.
    ///
    /// ```swift
    /// for try await changes in store.events(of: .glucose(.day(today))) {
    ///     print(changes.added.map(\.value))
    /// }
    /// ```
    public func events<Event>(of topic: ListenerTopic<Event>) -> StoreEvents<Event> {
        StoreEvents(store: self, topic: topic)
    }
}

/// A registered listener. It stops when ``cancel()`` is called or when it is released.
public final class StoreListener: Sendable {
    private let state: ListenerState

    init(_ state: ListenerState) {
        self.state = state
    }

    deinit {
        state.cancel()
    }

    /// Stops the listener. No event is delivered after `cancel()` returns, except one that was
    /// already being delivered on another thread. Calling it again does nothing.
    public func cancel() {
        state.cancel()
    }

    /// Whether the listener still delivers events (not cancelled, not failed).
    public var isActive: Bool { state.isActive }
}

/// The events of a ``ListenerTopic`` as an `AsyncSequence`; see ``SharedStore/events(of:)``.
public struct StoreEvents<Event: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Event

    let store: SharedStore
    let topic: ListenerTopic<Event>

    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncThrowingStream<Event, any Error>.makeStream()
        do {
            let listener = try store.listen(
                to: topic, onError: { continuation.finish(throwing: $0) }, onEvent: { continuation.yield($0) })
            // Weak: the iterator owns the listener, so that dropping the iterator stops it.
            continuation.onTermination = { [weak listener] _ in listener?.cancel() }
            return Iterator(base: stream.makeAsyncIterator(), listener: listener)
        } catch {
            continuation.finish(throwing: error)
            return Iterator(base: stream.makeAsyncIterator(), listener: nil)
        }
    }

    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Event, any Error>.Iterator
        let listener: StoreListener?

        public mutating func next() async throws -> Event? {
            try await base.next()
        }
    }
}

/// The lifecycle of one listener: its GRDB observation and its claim on the store's watch for
/// other programs' commits, both given up once.
final class ListenerState: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    private var cancellable: AnyDatabaseCancellable?
    private let release: ExternalChanges

    init(release: ExternalChanges) {
        self.release = release
    }

    var isActive: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !cancelled
    }

    func attach(_ cancellable: AnyDatabaseCancellable) {
        lock.lock()
        let cancelled = self.cancelled
        if !cancelled { self.cancellable = cancellable }
        lock.unlock()
        if cancelled { cancellable.cancel() }
    }

    func cancel() {
        lock.lock()
        guard !cancelled else {
            lock.unlock()
            return
        }
        cancelled = true
        let cancellable = self.cancellable
        self.cancellable = nil
        lock.unlock()
        cancellable?.cancel()
        release.release()
    }
}
