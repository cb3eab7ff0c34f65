import Capture
import Drivers
import Foundation
import Ingest
import Logging
import Model
import Store
import Transport

/// How a capture was played to its driver.
public enum ReplayMode: Sendable, Equatable, CustomStringConvertible {
    /// The driver held its normal conversation and the capture answered every request.
    case conversation
    /// The capture was made by another program; every recorded answer was decoded as the reply to
    /// the request recorded before it. `reason` says why conversation replay was not possible.
    case passive(reason: String)

    public var description: String {
        switch self {
        case .conversation: "conversation replay"
        case .passive(let reason): "passive replay (\(reason))"
        }
    }
}

/// What one import did.
public struct ImportOutcome: Sendable {
    public var summary: ImportSummary
    public var source: DeviceSource
    public var mode: String
    public var origin: String?
    public var replayMode: ReplayMode?
    public var captureFormat: USBCaptureFormat?
    public var clock: ClockReport
    public var events: [ImportEvent]
    public var notes: [String]
}

/// Runs imports: a transport (hardware or capture) → the device's driver → normalising → one
/// store transaction. The device is read completely before anything is written, so a failure at
/// any point leaves the store as it was.
public struct Importer: Sendable {
    public let store: SharedStore
    public var logger: Logger

    public init(store: SharedStore, logger: Logger = Logger(label: "glucobridge.import")) {
        self.store = store
        self.logger = logger
    }

    /// Replays a capture file into the store. The driver is taken from the capture's device
    /// descriptors unless `driverName` names one. Conversation replay is tried first; when the
    /// capture cannot answer the driver's requests, it is decoded passively, and the outcome says so.
    public func replay(captureAt url: URL, driverName: String? = nil) throws(ImportError) -> ImportOutcome {
        let capture: USBCapture
        do {
            capture = try USBCaptureReader.read(contentsOf: url)
        } catch {
            throw .capture(error)
        }
        let name = url.lastPathComponent
        let (device, driver, detection, detectionDecode) = try Self.select(in: capture, captureName: name, driverName: driverName)
        let startedAt = Date()
        var replayMode = ReplayMode.conversation
        let download: DeviceDownload
        do {
            download = try driver.download(over: ReplayUSBTransport(device), after: storedCursors)
        } catch let error where Self.replayMismatch(error) != nil {
            replayMode = .passive(reason: Self.replayMismatch(error)!)
            logger.debug("conversation replay not possible, decoding passively", metadata: ["reason": "\(replayMode)"])
            do {
                download = try detectionDecode ?? driver.decode(recorded: device, after: storedCursors)
            } catch {
                throw Self.wrap(error)
            }
        } catch {
            throw Self.wrap(error)
        }
        let mode = replayMode == .conversation ? "replay-conversation" : "replay-passive"
        var outcome = try write(download, mode: mode, origin: url.path, startedAt: startedAt)
        outcome.replayMode = replayMode
        outcome.captureFormat = capture.format
        if let detection { outcome.notes.insert(detection, at: 0) }
        return outcome
    }

    /// Imports from the first supported device on the USB bus, recording the session to
    /// `recordURL` as a usbmon pcap when given.
    public func importLive(context: LibUSBContext, recordTo recordURL: URL? = nil) throws(ImportError) -> ImportOutcome {
        let found: [USBDeviceDescription]
        do {
            found = try context.devices(matching: DriverRegistry.usbProducts.map { ($0.vendorID, $0.productID) })
        } catch {
            throw .transport(error)
        }
        guard let device = found.first,
              let driver = DriverRegistry.usbDriver(vendorID: device.vendorID, productID: device.productID) else {
            throw .transport(.noDevice)
        }
        let transport: LibUSBTransport
        do {
            transport = try LibUSBTransport(context: context, bus: device.bus, address: device.address)
        } catch {
            throw .transport(error)
        }
        logger.info("reading device", metadata: ["device": "\(device.idString)", "bus": "\(device.bus)", "address": "\(device.address)"])
        return try importSession(
            over: transport, driver: driver, origin: "usb bus \(device.bus) address \(device.address)", recordTo: recordURL)
    }

    /// Imports from an opened device: reads it completely with `driver` (only what is newer than
    /// the store's cursors for it), closes it, then writes one transaction. With `recordURL`, the
    /// session is also written there as a usbmon pcap.
    public func importSession(
        over device: any USBTransport, driver: any USBDeviceDriver.Type, origin: String, recordTo recordURL: URL? = nil
    ) throws(ImportError) -> ImportOutcome {
        let startedAt = Date()
        let download: DeviceDownload
        do {
            var transport = device
            var recorder: RecordingUSBTransport?
            if let recordURL {
                let recording = try RecordingUSBTransport(recording: device, to: recordURL)
                recorder = recording
                transport = recording
            }
            defer { transport.close() }
            download = try driver.download(over: transport, after: storedCursors)
            try recorder?.finish()
        } catch {
            throw Self.wrap(error)
        }
        return try write(download, mode: "live", origin: origin, startedAt: startedAt)
    }

    /// The cursors the store holds for a source: the driver reads only what is newer.
    private var storedCursors: @Sendable (DeviceSource) throws -> [String: Int64] {
        { [store] source in
            var cursors: [String: Int64] = [:]
            for stream in ["egv", "meter"] {
                if let cursor = try store.cursor(source: source, stream: stream) { cursors[stream] = cursor }
            }
            return cursors
        }
    }

    private func write(_ download: DeviceDownload, mode: String, origin: String?, startedAt: Date) throws(ImportError) -> ImportOutcome {
        let batch = Normaliser.batch(from: download, mode: mode, origin: origin, startedAt: startedAt, timeZone: store.timeZone)
        let summary: ImportSummary
        do {
            summary = try store.record(batch)
        } catch {
            throw .store(error)
        }
        logger.info("import stored", metadata: [
            "source": "\(batch.source)", "mode": "\(mode)", "read": "\(summary.recordsRead)",
            "added": "\(summary.added)", "alreadyStored": "\(summary.alreadyStored)",
        ])
        return ImportOutcome(
            summary: summary, source: batch.source, mode: mode, origin: origin, replayMode: nil, captureFormat: nil,
            clock: batch.clock, events: batch.events, notes: batch.notes)
    }

    /// Picks the device to replay and its driver. When the traffic had to be decoded to tell the
    /// driver, that passive decode comes back too.
    static func select(in capture: USBCapture, captureName: String, driverName: String?) throws(ImportError)
        -> (CapturedDevice, any USBDeviceDriver.Type, detection: String?, passive: DeviceDownload?)
    {
        let devices = CapturedDevice.devices(in: capture).filter(\.hasDataTransfers)
        guard !devices.isEmpty else { throw .noConversation(capture: captureName) }
        if let driverName {
            guard let driver = DriverRegistry.usbDriver(named: driverName) else {
                throw .unknownDriver(driverName, known: DriverRegistry.usb.map { $0.family })
            }
            let candidates = devices.filter {
                !$0.hasDescriptors || driver.supports(vendorID: $0.description.vendorID, productID: $0.description.productID)
            }
            guard candidates.count == 1 else {
                if candidates.isEmpty { throw .unsupportedDevice(capture: captureName, ids: devices.map(\.description.idString)) }
                throw .ambiguousDevice(capture: captureName, devices: candidates.map(Self.label))
            }
            return (candidates[0], driver, nil, nil)
        }
        let described = devices.filter(\.hasDescriptors)
        if described.isEmpty {
            // No descriptors (a transcript, or a capture started after enumeration): the family
            // whose decoder accepts the whole recorded conversation is the one.
            for device in devices {
                for driver in DriverRegistry.usb {
                    if let decoded = try? driver.decode(recorded: device) {
                        return (device, driver, "no device descriptors in the capture; the traffic was recognised as \(driver.family)", decoded)
                    }
                }
            }
            throw .driverNotDetected(capture: captureName)
        }
        let supported = described.compactMap { device in
            DriverRegistry.usbDriver(vendorID: device.description.vendorID, productID: device.description.productID).map { (device, $0) }
        }
        guard supported.count == 1 else {
            if supported.isEmpty { throw .unsupportedDevice(capture: captureName, ids: described.map(\.description.idString)) }
            throw .ambiguousDevice(capture: captureName, devices: supported.map { Self.label($0.0) })
        }
        return (supported[0].0, supported[0].1, nil, nil)
    }

    private static func label(_ device: CapturedDevice) -> String {
        "\(device.description.idString) on bus \(device.description.bus) address \(device.description.address)"
    }

    /// Why a conversation replay could not go on, when the cause is that the capture does not
    /// hold what the driver asked (as opposed to a fault recorded in the capture).
    static func replayMismatch(_ error: any Error) -> String? {
        guard let transportError = (error as? TransportErrorCarrying)?.transportError ?? (error as? TransportError) else { return nil }
        switch transportError {
        case let .requestNotInCapture(request, packet):
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

    static func wrap(_ error: any Error) -> ImportError {
        if let error = error as? ImportError { return error }
        if let carried = (error as? TransportErrorCarrying)?.transportError, case .disconnected = carried { return .transport(carried) }
        if let error = error as? StoreError { return .store(error) }
        if let error = error as? TransportError { return .transport(error) }
        return .driver(error)
    }
}
