import Foundation

/// Runs imports one after another on one thread of their own.
///
/// Imports block (libusb transfers, SQLite writes), so they run on a serial dispatch queue rather
/// than on Swift's cooperative threads; awaiting `run` suspends the caller without holding a
/// thread. One queue serves USB arrivals, spool files and (later) Bluetooth sources, so two
/// imports never run at once and never share a transaction.
package final class ImportQueue: Sendable {
    private let queue = DispatchQueue(label: "glucobridge.imports")

    package init() {}

    /// Runs `body` after every import queued before it has finished.
    package func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }
}
