import Foundation
import Synchronization
import Transport

/// Fresh device models, each made ahead of need on a thread of its own.
///
/// A reader's session starts anew when it is plugged in again, so the lab serves each plug-in a
/// fresh model. Making one can take seconds in an emulated machine (a Dexcom receiver's 90 Days
/// are generated and paged), longer than a host waits for its first answer after it configures
/// the device; taking the model made ahead costs nothing, and the next one is made while the
/// host talks to this one.
final class ModelSupply: @unchecked Sendable {
    // Unchecked: `make` and the spare are touched only under `condition`'s lock, and a model is
    // handed to one thread, the server's, which alone uses it from then on.
    private let make: () throws -> any USBTransport
    private let condition = NSCondition()
    private var spare: Result<any USBTransport, any Error>?

    /// A supply whose first model is `first`, already made (the one the gadget was described
    /// from): the host may ask for its first answer as soon as the gadget is plugged in, before
    /// another model could be made. The next is made when `first` is taken.
    init(first: any USBTransport, _ make: @escaping () throws -> any USBTransport) {
        self.make = make
        spare = .success(first)
    }

    /// The model made ahead (waiting for it if it is still being made); the next one is started.
    func take() throws -> any USBTransport {
        condition.lock()
        while spare == nil { condition.wait() }
        let taken = spare!
        spare = nil
        condition.unlock()
        prepareNext()
        return try taken.get()
    }

    private func prepareNext() {
        Thread { [self] in
            let made = Result { try make() }
            condition.lock()
            spare = made
            condition.signal()
            condition.unlock()
        }.start()
    }
}

/// How many times the host has configured the device (FunctionFS's ENABLE events), counted by
/// the control endpoint's thread and read by the data endpoints' loop: a request that arrives
/// after a new configuration starts a new session even when the loop saw no unplug itself (its
/// read was not pending while the device was away).
final class HostSessions: Sendable {
    private let count = Mutex(0)

    func started() { count.withLock { $0 += 1 } }

    var current: Int { count.withLock { $0 } }
}
