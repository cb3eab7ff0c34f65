import CaptureUSB
import Drivers
import Foundation
import Ingest
import Logging
import Model
import Pipeline
import Store
import Transport
import TransportReplay

/// How a capture was played to its driver.
package enum ReplayMode: Sendable, Equatable, CustomStringConvertible {
    /// The driver held its normal conversation and the capture answered every request.
    case conversation
    /// The capture was made by another program; every recorded answer was decoded as the reply to
    /// the request recorded before it. `reason` says why conversation replay was not possible.
    case passive(reason: String)

    package var description: String {
        switch self {
        case .conversation: "conversation replay"
        case .passive(let reason): "passive replay (\(reason))"
        }
    }
}

/// What one import stored for one glucose source: a USB reader or its capture, or one glucose
/// service of a Bluetooth device (see ``DeviceImport/glucose``).
package struct GlucoseImport: Sendable {
    package var summary: ImportSummary
    package var source: DeviceSource
    package var mode: ImportMode
    package var origin: String?
    package var replayMode: ReplayMode?
    package var captureFormat: USBCaptureFormat?
    package var clock: ClockReport
    /// Records read but not stored, by reason (special values, CRC failures, implausible times …).
    package var events: [ImportEvent]
    package var notes: [String]
    /// The Bluetooth service the records came from; nil for a USB device.
    package var service: BLEService?
}

/// Runs imports: a transport (hardware or capture) → the device's driver → normalising → one
/// store transaction. The device is read completely before anything is written, so a failure at
/// any point leaves the store as it was.
public struct Importer: Sendable {
    package let store: SharedStore
    package var logger: Logger

    public init(store: SharedStore, logger: Logger = Logger(label: "glucobridge.import")) {
        self.store = store
        self.logger = logger
    }

    /// Replays every supported device of a USB capture (a usbmon capture of a whole bus may hold
    /// several readers), each as its own import, in the order of their bus addresses. The driver
    /// is taken from the capture's device descriptors unless `driverName` names one. Conversation
    /// replay is tried first; when the capture cannot answer the driver's requests, it is decoded
    /// passively, and the outcome says so. Every device is read before anything is written.
    func replayUSBCapture(at url: URL, driverName: String?, context: ImportContext) throws(ImportError) -> [DeviceImport] {
        let deadline = context.budget.map { ReplayDeadline(budget: $0) }
        let capture = try Self.readCapture(url)
        let selected = try Self.select(in: capture, captureName: url.lastPathComponent, driverName: driverName)
        // Every device is read and its batch checked before any is written, then all are
        // written in one transaction: a capture is stored whole or not at all.
        var reads: [(device: SelectedDevice, batch: ImportBatch, mode: ReplayMode)] = []
        let window = PlausibleWindow.forCapture(timestamps: capture.transfers.compactMap { $0.timestamp })
        let downloadContext = try downloadContext(context)
        for (position, device) in selected.enumerated() {
            do throws(ImportError) {
                let startedAt = Date()
                let (download, replayMode) = try read(device, deadline: deadline, context: downloadContext)
                let mode: ImportMode = replayMode == .conversation ? .replayConversation : .replayPassive
                let batch = try normalise(try Self.glucose(of: download), mode: mode, origin: url.path, startedAt: startedAt, window: window)
                reads.append((device, batch, replayMode))
            } catch {
                guard selected.count > 1 else { throw error }
                throw .capturedDevice(
                    capture: url.lastPathComponent, position: position + 1, count: selected.count, device: Self.label(device.device), error)
            }
        }
        try Self.check(deadline)
        try Self.checkCancelled(context)
        let summaries: [ImportSummary]
        do {
            summaries = reads.count == 1 ? [try store.save(reads[0].batch)] : try store.save(glucose: reads.map(\.batch), activity: []).glucose
        } catch {
            throw .store(error)
        }
        return zip(reads, summaries).map { read, summary in
            var outcome = stored(read.batch, summary)
            outcome.replayMode = read.mode
            outcome.captureFormat = capture.format
            if let detection = read.device.detection { outcome.notes.insert(detection, at: 0) }
            return DeviceImport(usb: outcome)
        }
    }

    private static func readCapture(_ url: URL) throws(ImportError) -> USBCapture {
        do {
            return try USBCaptureReader.read(contentsOf: url)
        } catch {
            throw .capture(error)
        }
    }

    /// Fails when the import's time is up, before anything is written.
    private static func check(_ deadline: ReplayDeadline?) throws(ImportError) {
        if let deadline, deadline.hasPassed { throw .transport(.deadlinePassed(deadline.budget)) }
    }

    /// Reads one captured device: conversation replay first; when the capture cannot answer the
    /// driver's requests, a passive decode.
    private func read(_ selected: SelectedDevice, deadline: ReplayDeadline?, context downloadContext: DownloadContext) throws(ImportError) -> (
        DriverDownload, ReplayMode
    ) {
        do throws(SessionFailure) {
            let transport = ReplayUSBTransport(selected.device, deadline: deadline)
            return (try selected.driver.session(over: transport, context: downloadContext), .conversation)
        } catch {
            guard let reason = Self.replayMismatch(error.error) else { throw Self.importError(error) }
            let replayMode = ReplayMode.passive(reason: reason)
            logger.debug("conversation replay not possible, decoding passively", metadata: ["reason": "\(replayMode)"])
            do throws(SessionFailure) {
                if let passive = selected.passive { return (passive, replayMode) }
                return (try selected.driver.session(recorded: selected.device, context: downloadContext), replayMode)
            } catch {
                throw Self.importError(error)
            }
        }
    }

    /// Imports from an opened device: reads it completely with its driver (only what is newer
    /// than the store's cursors for it), closes it, then writes one transaction. With
    /// `context.recordTo`, the session is also written there as a usbmon pcap.
    func importUSB(_ opened: OpenedUSBDevice, context: ImportContext) throws(ImportError) -> DeviceImport {
        let startedAt = Date()
        let downloadContext: DownloadContext
        do throws(ImportError) {
            downloadContext = try self.downloadContext(context)
        } catch {
            opened.transport.close()
            throw error
        }
        let download: DriverDownload
        do throws(ImportError) {
            var transport = opened.transport
            if let cancellation = context.cancellation { transport = CancellableUSBTransport(transport, cancellation: cancellation) }
            var recorder: RecordingUSBTransport?
            if let recordURL = context.recordTo {
                let recording: RecordingUSBTransport
                do { recording = try RecordingUSBTransport(recording: transport, to: recordURL) } catch { throw .transport(error) }
                recorder = recording
                transport = recording
            }
            defer { transport.close() }
            do throws(SessionFailure) {
                download = try opened.driver.session(over: transport, context: downloadContext)
            } catch {
                throw Self.importError(error)
            }
            do { try recorder?.finish() } catch { throw .transport(error) }
        } catch {
            if let reason = context.cancellation?.reason { throw reason }
            throw error.naming(device: opened.origin)
        }
        try Self.checkCancelled(context)
        let glucose = try Self.glucose(of: download)
        // A live session's own time is the host's clock now (or as the transport stamped it).
        let window = PlausibleWindow(captureTime: max(Date(), glucose.clock.hostNow ?? .distantPast))
        return DeviceImport(usb: try write(glucose, mode: .live, origin: opened.origin, startedAt: startedAt, window: window))
    }

    /// The glucose a USB family's session read (every USB family reads glucose).
    static func glucose(of download: DriverDownload) throws(ImportError) -> GlucoseDownload {
        guard let glucose = download.glucose else { throw .noGlucose(family: download.family) }
        return glucose
    }

    /// What a driver is given: the store's cursors and the import's progress reporter.
    /// The cursors are read before the session (one query), so a store that cannot answer stops
    /// the import before the device is asked anything.
    func downloadContext(_ context: ImportContext) throws(ImportError) -> DownloadContext {
        let stored: [DeviceSource: RecordCursors]
        do {
            stored = try store.cursorsBySource()
        } catch {
            throw .store(error)
        }
        return DownloadContext(stored: stored, progress: context.progress)
    }

    /// Fails with the cancellation's reason once the import was cancelled, before anything is written.
    static func checkCancelled(_ context: ImportContext) throws(ImportError) {
        if let reason = context.cancellation?.reason { throw reason }
    }

    private func write(
        _ download: GlucoseDownload, mode: ImportMode, origin: String?, startedAt: Date, window: PlausibleWindow
    ) throws(ImportError) -> GlucoseImport {
        let batch = try normalise(download, mode: mode, origin: origin, startedAt: startedAt, window: window)
        let summary: ImportSummary
        do {
            summary = try store.save(batch)
        } catch {
            throw .store(error)
        }
        return stored(batch, summary)
    }

    /// A device's download as the batch the store takes, its times placed by the device's clock.
    private func normalise(
        _ download: GlucoseDownload, mode: ImportMode, origin: String?, startedAt: Date, window: PlausibleWindow
    ) throws(ImportError) -> ImportBatch {
        do {
            return try Normaliser.batch(
                from: download, mode: mode, origin: origin, startedAt: startedAt, timeZone: store.timeZone, window: window)
        } catch {
            throw .implausibleClock(error)
        }
    }

    /// What storing `batch` did, logged and as the import's result.
    private func stored(_ batch: ImportBatch, _ summary: ImportSummary) -> GlucoseImport {
        logger.info(
            "import stored",
            metadata: [
                "source": "\(batch.source)", "mode": "\(batch.mode)", "read": "\(summary.recordsRead)",
                "added": "\(summary.added)", "alreadyStored": "\(summary.alreadyStored)",
            ])
        return GlucoseImport(
            summary: summary, source: batch.source, mode: batch.mode, origin: batch.origin, replayMode: nil, captureFormat: nil,
            clock: batch.clock, events: batch.events, notes: batch.notes, service: nil)
    }

    /// A captured device to replay, its driver, and (when the traffic had to be decoded to tell
    /// the driver) why it was chosen and that passive decode.
    struct SelectedDevice {
        var device: RecordedUSBDevice
        var driver: any USBDeviceDriver.Type
        var detection: String?
        var passive: DriverDownload?
    }

    /// Picks the devices to replay and their drivers: every device the capture's descriptors show
    /// a driver supports (or that `driverName`'s driver supports); without descriptors, the
    /// device whose traffic a driver decodes whole.
    static func select(in capture: USBCapture, captureName: String, driverName: String?) throws(ImportError) -> [SelectedDevice] {
        let devices = RecordedUSBDevice.devices(in: capture).filter(\.hasDataTransfers)
        guard !devices.isEmpty else { throw .noConversation(capture: captureName) }
        if let driverName {
            guard let driver = DriverRegistry.usbDriver(named: driverName) else {
                throw .unknownDriver(driverName, known: DriverRegistry.usb.map { $0.family.rawValue })
            }
            let candidates = devices.filter {
                !$0.hasDescriptors || driver.supports(vendorID: $0.description.vendorID, productID: $0.description.productID)
            }
            if candidates.isEmpty { throw .unsupportedDevice(capture: captureName, ids: devices.map(\.description.idString)) }
            if candidates.count > 1, candidates.contains(where: { !$0.hasDescriptors }) {
                throw .ambiguousDevice(capture: captureName, devices: candidates.map(Self.label))
            }
            return candidates.map { SelectedDevice(device: $0, driver: driver) }
        }
        let described = devices.filter(\.hasDescriptors)
        if described.isEmpty {
            // No descriptors (a transcript, or a capture started after enumeration): the family
            // whose decoder accepts the whole recorded conversation is the one.
            for device in devices {
                for driver in DriverRegistry.usb {
                    if let decoded = try? driver.session(recorded: device, context: .fresh) {
                        return [
                            SelectedDevice(
                                device: device, driver: driver,
                                detection: "no device descriptors in the capture; the traffic was recognised as \(driver.family)", passive: decoded)
                        ]
                    }
                }
            }
            throw .driverNotDetected(capture: captureName)
        }
        let supported = described.compactMap { device in
            DriverRegistry.usbDriver(vendorID: device.description.vendorID, productID: device.description.productID)
                .map { SelectedDevice(device: device, driver: $0) }
        }
        if supported.isEmpty { throw .unsupportedDevice(capture: captureName, ids: described.map(\.description.idString)) }
        return supported
    }

    private static func label(_ device: RecordedUSBDevice) -> String {
        "\(device.description.idString) on bus \(device.description.bus) address \(device.description.address)"
    }

    /// Why a conversation replay could not go on, when the cause is that the capture does not
    /// hold what the driver asked (as opposed to a fault recorded in the capture).
    static func replayMismatch(_ error: any DriverError) -> String? {
        guard let transportError = error.transportError else { return nil }
        switch transportError {
        case .requestNotInCapture(let request, let packet):
            let shown = Hex.encode(Array(request.prefix(16))) + (request.count > 16 ? " …" : "")
            return "the capture does not hold the request \(shown) (searched after packet \(packet))"
        case .timeout:
            return "a request the driver sends is never answered in the capture"
        case .captureExhausted:
            return transportError.description
        default:
            return nil
        }
    }

    /// A session's failure as the import reports it: a device gone is the transport's error,
    /// anything else the family's.
    static func importError(_ failure: SessionFailure) -> ImportError {
        if let carried = failure.error.transportError, case .disconnected = carried { return .transport(carried) }
        return .driver(failure.error)
    }
}

extension Importer {
    /// Imports from `source` into the store: the one way in for every bus, live or replayed.
    ///
    /// The source is read completely (a capture: every device it holds), normalised and checked
    /// before anything is written; each device is then written in one store transaction. A
    /// failure or a cancellation at any point before that leaves the store as it was.
    public func run(_ source: ImportSource, context: ImportContext = ImportContext()) throws(ImportError) -> ImportResult {
        try Self.checkCancelled(context)
        switch source {
        case .capture(let url, let driver):
            if Self.isFolder(url) {
                return ImportResult(devices: try importFIT(try Self.fitFiles(in: url), origin: url.path, skippingOthers: true, context: context))
            }
            if Self.fileDriver(url) == FITDriver.family {
                return ImportResult(devices: try importFIT([url], origin: url.path, skippingOthers: false, context: context))
            }
            if Self.isBTSnoop(url) { return ImportResult(devices: try replayBluetoothCapture(at: url, context: context)) }
            return ImportResult(devices: try replayUSBCapture(at: url, driverName: driver, context: context))
        case .usb(let opening):
            let opened = try opening.open()
            logger.info("reading device", metadata: ["device": "\(opened.origin)", "driver": "\(opened.driver.family)"])
            return ImportResult(devices: [try importUSB(opened, context: context)])
        case .bluetooth(let connecting):
            let connected = try connecting.connect()
            logger.info("connected", metadata: ["peer": "\(connected.origin)"])
            return ImportResult(devices: [try importBluetooth(connected, context: context)])
        }
    }

    /// True when the file at `url` starts with the btsnoop magic, whatever its name.
    package static func isBTSnoop(_ url: URL) -> Bool {
        FileBytes.prefix(ofPath: url.path, count: 8) == Array("btsnoop\u{0}".utf8)
    }
}
