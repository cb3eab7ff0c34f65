import Foundation
import Transport

/// Runs imports one after another on one thread of their own.
///
/// Imports block (libusb transfers, SQLite writes), so they run on a serial dispatch queue rather
/// than on Swift's cooperative threads; awaiting `run` suspends the caller without holding a
/// thread. One queue serves USB arrivals, spool files and (later) Bluetooth sources, so two
/// imports never run at once and never share a transaction.
public final class ImportQueue: Sendable {
    private let queue = DispatchQueue(label: "glucobridge.imports")

    public init() {}

    /// Runs `body` after every import queued before it has finished.
    public func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }
}

/// Set once to make an import stop at its next USB transfer: when its reader leaves, when the
/// daemon stops, or when the import has run for its time limit. The import then fails before
/// writing, so the store keeps nothing of it.
public final class AbortSwitch: @unchecked Sendable {
    private let lock = NSLock()
    private var error: TransportError?
    private var deadline: (at: ContinuousClock.Instant, limit: Duration)?

    public init() {}

    /// Starts the import's clock: from `limit` on, the switch is set (`deadlinePassed`); a limit
    /// of zero sets it at once.
    public func startClock(limit: Duration) {
        lock.withLock { deadline = (ContinuousClock.now + limit, limit) }
    }

    /// The first call wins; later calls keep the first reason.
    public func abort(_ error: TransportError) {
        lock.withLock {
            if self.error == nil { self.error = error }
        }
    }

    /// Why the import must stop, once `abort` was called or the time limit passed.
    public var abortError: TransportError? {
        lock.withLock {
            if error == nil, let deadline, deadline.limit <= .zero || ContinuousClock.now >= deadline.at { error = .deadlinePassed(deadline.limit) }
            return error
        }
    }
}

/// A device whose every transfer first checks an `AbortSwitch`.
///
/// libusb's synchronous transfers cannot be interrupted from another thread without closing the
/// handle under them, which is unsafe; checking between transfers bounds the wait to one
/// transfer's timeout, and a reader that left fails its transfer at once (LIBUSB_ERROR_NO_DEVICE).
final class AbortableTransport: USBTransport {
    let base: any USBTransport
    let abortSwitch: AbortSwitch

    init(_ base: any USBTransport, abortSwitch: AbortSwitch) {
        self.base = base
        self.abortSwitch = abortSwitch
    }

    var device: USBDeviceDescription { base.device }

    func claimInterface(_ number: UInt8) throws(TransportError) {
        try check()
        try base.claimInterface(number)
    }

    func write(_ bytes: [UInt8], to endpoint: USBEndpoint, timeout: Duration) throws(TransportError) {
        try check()
        try base.write(bytes, to: endpoint, timeout: timeout)
    }

    func read(from endpoint: USBEndpoint, maxLength: Int, timeout: Duration) throws(TransportError) -> USBRead {
        try check()
        return try base.read(from: endpoint, maxLength: maxLength, timeout: timeout)
    }

    func control(_ setup: USBControlSetup, data: [UInt8], timeout: Duration) throws(TransportError) -> USBRead {
        try check()
        return try base.control(setup, data: data, timeout: timeout)
    }

    func close() {
        base.close()
    }

    private func check() throws(TransportError) {
        if let error = abortSwitch.abortError { throw error }
    }
}
