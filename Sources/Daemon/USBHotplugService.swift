import Drivers
import Foundation
import Importer
import LiveImport
import Logging
import ServiceLifecycle
import Transport
import TransportLibUSB

/// Imports a supported reader when libusb reports it arriving.
///
/// Imports go through the shared `ImportQueue`, one at a time. A reader that leaves while its
/// import runs makes that import stop at its next transfer (its `ImportCancellation`), before
/// anything is written; one that leaves while still queued is skipped. On graceful shutdown every import
/// in flight is aborted the same way, the hotplug thread stops, and `run` returns once the
/// aborted imports have closed their devices (releasing the interfaces and re-binding kernel drivers).
package final class USBHotplugService: Service {
    let context: LibUSBContext
    let monitor: LibUSBHotplugMonitor
    let importer: Importer
    let queue: ImportQueue
    let state: StateFileWriter
    let logger: Logger
    /// How long one reader's import may run once started (see `ImportCancellation.startClock`).
    let importLimit: Duration
    private let inFlight = InFlightImports()

    package init(
        context: LibUSBContext, monitor: LibUSBHotplugMonitor, importer: Importer, queue: ImportQueue, state: StateFileWriter,
        logger: Logger, importLimit: Duration = .seconds(600)
    ) {
        self.importLimit = importLimit
        self.context = context
        self.monitor = monitor
        self.importer = importer
        self.queue = queue
        self.state = state
        self.logger = logger
    }

    package func run() async {
        let inFlight = self.inFlight
        let monitor = self.monitor
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for await event in monitor.events {
                    let device = "\(event.idString) on \(event.location)"
                    switch event.kind {
                    case .arrived:
                        // libusb may report a device present at start-up twice; one import is enough.
                        guard let cancellation = inFlight.begin(event.location) else { continue }
                        logger.info("reader arrived", metadata: event.logMetadata)
                        group.addTask {
                            await self.importReader(event, cancellation: cancellation)
                            inFlight.end(event.location)
                        }
                    case .left:
                        if inFlight.cancel(event.location, with: .transport(.disconnected(device))) {
                            logger.warning(
                                "reader left during its import; the import is abandoned, nothing of it is stored",
                                metadata: event.logMetadata)
                        } else {
                            logger.info("reader left", metadata: event.logMetadata)
                        }
                    }
                }
            }
        } onGracefulShutdown: {
            inFlight.cancelAll(with: .cancelled(.stopping(abandoned: "the import")))
            monitor.stop()
        }
    }

    private func importReader(_ event: USBHotplugEvent, cancellation: ImportCancellation) async {
        let what = "usb \(event.idString) on \(event.location)"
        let location = event.location
        var metadata = event.logMetadata
        await state.update { $0.activity = "importing \(what)" }
        let (importer, context, limit) = (self.importer, self.context, self.importLimit)
        let result = await queue.run { () -> Result<ImportReport, ImportError> in
            if let reason = cancellation.reason { return .failure(reason) }
            cancellation.startClock(limit: limit)
            return Result { () throws(ImportError) -> ImportReport in
                let result =
                    if event.vendorID == GarminVolume.vendorID {
                        try Self.importGarmin(at: location, importer: importer, cancellation: cancellation)
                    } else {
                        try importer.run(.usb(LibUSBDevice.at(location, in: context)), context: ImportContext(cancellation: cancellation))
                    }
                return ImportReport(result, store: importer.store)
            }
        }
        switch result {
        case .success(let report):
            metadata.merge(report.logMetadata) { _, new in new }
            logger.info("reader imported", metadata: metadata)
            await state.update {
                $0.usbImported += 1
                $0.activity = nil
            }
        case .failure(.cancelled(let why)):
            metadata["why"] = "\(why)"
            logger.notice("reader import abandoned; nothing of it is stored", metadata: metadata)
            await state.update { $0.activity = nil }
        case .failure(let error):
            metadata["error"] = "\(error)"
            logger.error("reader import failed; nothing of it is stored", metadata: metadata)
            await state.update {
                $0.usbFailed += 1
                $0.recordFailure(what, "\(error)", at: Date())
                $0.activity = nil
            }
        }
    }
}

extension USBHotplugService {
    /// How long a Garmin watch just plugged in may take to have its volume mounted.
    static let mountWait = 60

    /// Imports the FIT files of the Garmin watch at `location`: through MTP for a watch that
    /// speaks it, else once its volume is mounted (on the import queue's thread: the wait blocks
    /// no other task).
    static func importGarmin(at location: USBDeviceLocation, importer: Importer, cancellation: ImportCancellation) throws(ImportError)
        -> ImportResult
    {
        if GarminMTP.plugged().contains(location) {
            return try GarminMTP.importWatch(at: location, importer: importer, context: ImportContext(cancellation: cancellation)).result
        }
        let found: (disk: GarminDisk, root: URL)?
        do {
            found = try GarminDisk.volume(at: location, waiting: mountWait, table: try MountTable())
        } catch {
            throw .driver(error)
        }
        guard let found else { throw .driver(GarminDiskError.notADisk(location: location.description)) }
        return try importer.importGarminVolume(found.root, origin: found.disk.origin, context: ImportContext(cancellation: cancellation))
    }
}

/// The readers with an import queued or running, each with the cancellation that stops it.
final class InFlightImports: @unchecked Sendable {
    private let lock = NSLock()
    private var cancellations: [USBDeviceLocation: ImportCancellation] = [:]

    /// A new cancellation for `location`, or nil when an import for it is already queued or running.
    func begin(_ location: USBDeviceLocation) -> ImportCancellation? {
        lock.withLock {
            guard cancellations[location] == nil else { return nil }
            let cancellation = ImportCancellation()
            cancellations[location] = cancellation
            return cancellation
        }
    }

    func end(_ location: USBDeviceLocation) {
        lock.withLock { _ = cancellations.removeValue(forKey: location) }
    }

    /// Cancels the import for `location`; false when there is none.
    func cancel(_ location: USBDeviceLocation, with error: ImportError) -> Bool {
        guard let cancellation = lock.withLock({ cancellations[location] }) else { return false }
        cancellation.cancel(error)
        return true
    }

    func cancelAll(with error: ImportError) {
        for cancellation in lock.withLock({ Array(cancellations.values) }) { cancellation.cancel(error) }
    }
}
