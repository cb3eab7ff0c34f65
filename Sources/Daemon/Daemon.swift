import Drivers
import Foundation
import Importer
import Logging
import ServiceLifecycle
import Store
import TransportLibUSB

#if canImport(Glibc)
    import Glibc
#endif

/// What `glucobridge daemon` runs.
package struct DaemonConfiguration: Sendable {
    /// The spool folder, when capture files are to be imported from one.
    package var spool: URL?
    /// Whether to import readers that libusb reports arriving (off when udev starts
    /// `glucobridge-import@.service` for them instead).
    package var usbHotplug: Bool
    package var spoolTiming: SpoolTiming
    /// Sources read on a schedule: Bluetooth sensors (`BluetoothSource`).
    package var polledSources: [any PolledSource]
    package var backOff: BackOff
    /// Where to send the store after every change (`--sync-to`), if anywhere.
    package var uploader: (any StoreUploader)?
    /// How often the store is checked for changes to sync.
    package var syncPoll: Duration
    /// Whether the pages of the program file that start-up or an import read go back to the
    /// kernel once the daemon is idle (`--release-idle-pages`; see `ProgramPages`): a smaller
    /// resident size at idle, paid for by reading them from disk again at the next import.
    package var releaseIdlePages = false

    package init(
        spool: URL?, usbHotplug: Bool, spoolTiming: SpoolTiming = SpoolTiming(), polledSources: [any PolledSource] = [],
        backOff: BackOff = BackOff(), uploader: (any StoreUploader)? = nil, syncPoll: Duration = .seconds(2)
    ) {
        self.spool = spool
        self.usbHotplug = usbHotplug
        self.spoolTiming = spoolTiming
        self.polledSources = polledSources
        self.backOff = backOff
        self.uploader = uploader
        self.syncPoll = syncPoll
    }
}

/// The background importer: a swift-service-lifecycle `ServiceGroup` of the spool folder, USB
/// hotplug and polled sources, all importing through one `ImportQueue` into one store.
///
/// SIGTERM and SIGINT start a graceful shutdown: the spool finishes the file in progress, USB
/// imports in flight are abandoned before they write, the hotplug thread stops; then the status
/// file says the daemon stopped, the store is closed, and libusb is released.
package enum GlucoBridgeDaemon {
    package static func run(_ configuration: DaemonConfiguration, store: SharedStore, logger: Logger) async throws {
        let importer = Importer(store: store)
        // Once the daemon is idle, it unmaps the code only its start-up runs (in a release
        // build, whose code is laid out for it); with --release-idle-pages, the kernel takes back
        // all the pages of the program file that start-up or an import read.
        var whenIdle: (after: Duration, body: @Sendable () -> Void)?
        if configuration.releaseIdlePages {
            whenIdle = (after: Self.releaseAfter, body: { _ = ProgramPages.release() })
        } else if ProgramPages.startUpCodeComesFirst {
            whenIdle = (after: Self.releaseAfter, body: { _ = ProgramPages.releaseStartUpCode() })
        }
        let queue = ImportQueue(whenIdle: whenIdle)
        var usbStatus: String
        var hotplug: (LibUSBContext, LibUSBHotplugMonitor)?
        if !configuration.usbHotplug {
            usbStatus = "hotplug off (--no-usb-hotplug: udev starts glucobridge-import@.service for each reader)"
        } else if !LibUSBContext.supportsHotplug {
            usbStatus = "hotplug unavailable: this libusb cannot report devices arriving"
        } else {
            do {
                let context = try LibUSBContext()
                let ids = DriverRegistry.usbProducts.map { (vendor: $0.vendorID, product: $0.productID) }
                hotplug = (context, try LibUSBHotplugMonitor(context: context, ids: ids, vendors: [GarminVolume.vendorID]))
                usbStatus = "hotplug: importing supported readers when they are plugged in"
            } catch {
                usbStatus = "hotplug unavailable: \(error)"
            }
        }
        if !configuration.usbHotplug {
            logger.info("USB hotplug is off", metadata: ["usb": "\(usbStatus)"])
        } else if hotplug == nil {
            logger.notice("USB readers are not watched; continuing without them", metadata: ["usb": "\(usbStatus)"])
        }
        if !FileManager.default.fileExists(atPath: "/sys/bus/usb"), hotplug != nil {
            usbStatus += " (this kernel has no USB bus, so none will arrive)"
            logger.notice("this kernel has no USB bus; no reader can arrive", metadata: ["usb": "\(usbStatus)"])
        }
        let bluetoothStatus =
            configuration.polledSources.isEmpty
            ? "no sensors to read (add them with --ble ADDRESS)"
            : "reading " + configuration.polledSources.map { "\($0.name) every \(Self.minutes($0.interval))" }.joined(separator: ", ")

        let state = StateFileWriter(
            storePath: store.path,
            initial: DaemonState(
                pid: getpid(), startedAt: Date(), spool: configuration.spool?.path, usb: usbStatus, bluetooth: bluetoothStatus),
            logger: logger)
        await state.save()

        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        func add(_ service: any Service) {
            services.append(
                .init(service: service, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup))
        }
        if let spool = configuration.spool {
            add(
                SpoolService(
                    folder: SpoolFolder(url: spool), importer: importer, queue: queue, state: state, timing: configuration.spoolTiming,
                    logger: logger))
        }
        if let (context, monitor) = hotplug {
            add(
                USBHotplugService(
                    context: context, monitor: monitor, importer: importer, queue: queue, state: state, logger: logger,
                    importLimit: configuration.spoolTiming.importLimit))
        }
        for source in configuration.polledSources {
            add(PolledSourceService(source: source, importer: importer, queue: queue, state: state, backOff: configuration.backOff, logger: logger))
        }
        if let uploader = configuration.uploader {
            add(
                SyncService(
                    uploader: uploader, store: store, state: state, backOff: configuration.backOff, poll: configuration.syncPoll,
                    logger: logger))
        }
        if services.isEmpty {
            // Without a spool or USB there is nothing to wait for: wait for the signal anyway, so
            // a unit without --spool does not restart in a loop.
            add(IdleService())
        }

        logger.info(
            "daemon started",
            metadata: [
                "pid": "\(getpid())", "store": "\(store.path)", "spool": "\(configuration.spool?.path ?? "-")", "usb": "\(usbStatus)",
            ])
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [], logger: logger))
        queue.settle()
        var failure: (any Error)?
        do {
            try await group.run()
        } catch {
            failure = error
        }

        hotplug?.1.stop()
        await state.update {
            $0.running = false
            $0.activity = nil
        }
        do {
            try store.database.close()
        } catch {
            logger.error("the store did not close cleanly", metadata: ["error": "\(error)"])
        }
        if let failure {
            logger.error("daemon stopped by an error", metadata: ["error": "\(failure)"])
            throw failure
        }
        logger.info("daemon stopped", metadata: ["pid": "\(getpid())"])
    }
}

extension GlucoBridgeDaemon {
    /// How long the daemon stays quiet (no import queued or running) before it hands the program
    /// pages it read back to the kernel: long enough that a burst of spool files or readers does
    /// not read them in again for every import.
    static let releaseAfter = Duration.seconds(5)

    /// `15 min` for whole minutes, else Swift's own `0.5 seconds`.
    static func minutes(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return attoseconds == 0 && seconds > 0 && seconds % 60 == 0 ? "\(seconds / 60) min" : "\(duration)"
    }
}

/// Waits for the graceful shutdown and does nothing else.
struct IdleService: Service {
    func run() async throws {
        try await gracefulShutdown()
    }
}
