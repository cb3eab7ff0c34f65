import Foundation
import Transport

/// Stops an import from another thread: when its reader leaves, when the daemon stops, or when
/// the import has run for its time limit. The import stops at its next transfer or PDU and
/// fails with the error given here, before anything is written, so the store keeps nothing of it.
public final class ImportCancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var error: ImportError?
    private var deadline: (at: ContinuousClock.Instant, limit: Duration)?

    package init() {}

    /// Starts the import's clock: from `limit` on, the import is cancelled with
    /// `TransportError.deadlinePassed`; a limit of zero cancels it at once.
    package func startClock(limit: Duration) {
        lock.withLock { deadline = (ContinuousClock.now + limit, limit) }
    }

    /// Cancels the import with `error`. The first call wins; later calls keep the first reason.
    package func cancel(_ error: ImportError) {
        lock.withLock {
            if self.error == nil { self.error = error }
        }
    }

    /// Why the import must stop, once cancelled or past its time limit; nil while it may go on.
    package var reason: ImportError? {
        lock.withLock {
            if error == nil, let deadline, deadline.limit <= .zero || ContinuousClock.now >= deadline.at {
                error = .transport(.deadlinePassed(deadline.limit))
            }
            return error
        }
    }
}

/// A USB device whose every transfer first checks the import's cancellation.
///
/// libusb's synchronous transfers cannot be interrupted from another thread without closing the
/// handle under them, which is unsafe; checking between transfers bounds the wait to one
/// transfer's timeout, and a reader that left fails its transfer at once (LIBUSB_ERROR_NO_DEVICE).
final class CancellableUSBTransport: USBTransport {
    let base: any USBTransport
    let cancellation: ImportCancellation

    init(_ base: any USBTransport, cancellation: ImportCancellation) {
        self.base = base
        self.cancellation = cancellation
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

    /// The pipeline turns this error into the cancellation's own once the session has stopped.
    private func check() throws(TransportError) {
        if cancellation.reason != nil { throw .transferFailed(endpoint: 0, reason: "the import was cancelled") }
    }
}

/// A Bluetooth link whose every PDU sent or awaited first checks the import's cancellation. A
/// long wait for a notification is taken in slices of at most a second, so a cancelled import
/// stops within about a second even while it listens.
final class CancellableATTBearer: ATTBearer {
    let base: any ATTBearer
    let cancellation: ImportCancellation
    static let slice: Duration = .seconds(1)

    init(_ base: any ATTBearer, cancellation: ImportCancellation) {
        self.base = base
        self.cancellation = cancellation
    }

    var peer: BLEPeer { base.peer }
    var connectionHandle: UInt16? { base.connectionHandle }

    func send(_ pdu: [UInt8]) throws(BLEError) {
        try check()
        try base.send(pdu)
    }

    func receive(timeout: Duration) throws(BLEError) -> ATTBearerPDU? {
        var left = timeout
        while true {
            try check()
            let wait = min(left, Self.slice)
            if let pdu = try base.receive(timeout: wait) { return pdu }
            left -= wait
            if left <= .zero { return nil }
        }
    }

    func raiseSecurity(after error: ATTErrorCode) throws(BLEError) -> Bool {
        try check()
        return try base.raiseSecurity(after: error)
    }

    func close() {
        base.close()
    }

    private func check() throws(BLEError) {
        if cancellation.reason != nil { throw .disconnected("the import was cancelled") }
    }
}
