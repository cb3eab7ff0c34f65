import Drivers
import Foundation
import Importer
import Model
import Pipeline
import Transport

/// The tests' shortcuts into the one import pipeline (`Importer.run`) for a source that holds one
/// device: each builds the source and context, runs the pipeline, and returns that device's import.
extension Importer {
    /// Replays a USB capture holding one supported device: its glucose import.
    package func replayOne(
        captureAt url: URL, driverName: String? = nil, budget: Duration? = nil, progress: DownloadProgress = .silent
    ) throws(ImportError) -> GlucoseImport {
        let devices = try run(.capture(url, driver: driverName), context: ImportContext(budget: budget, progress: progress)).devices
        guard devices.count == 1, devices[0].session == nil else {
            throw .ambiguousDevice(capture: url.lastPathComponent, devices: devices.map { $0.origin ?? "?" })
        }
        return devices[0].glucose[0]
    }

    /// Replays a btsnoop capture holding one Bluetooth device.
    package func replayOneBLE(captureAt url: URL, budget: Duration? = nil, progress: DownloadProgress = .silent) throws(ImportError)
        -> DeviceImport
    {
        let devices = try run(.capture(url), context: ImportContext(budget: budget, progress: progress)).devices
        guard devices.count == 1 else {
            throw .ambiguousDevice(capture: url.lastPathComponent, devices: devices.map { "\($0.identity?.peer.description ?? "?")" })
        }
        return devices[0]
    }

    /// Imports from an open USB device (a simulator, a replayed or wrapped transport).
    package func importOne(
        over transport: any USBTransport, driver: any USBDeviceDriver.Type, origin: String, recordTo: URL? = nil,
        progress: DownloadProgress = .silent, cancellation: ImportCancellation? = nil
    ) throws(ImportError) -> GlucoseImport {
        let context = ImportContext(recordTo: recordTo, progress: progress, cancellation: cancellation)
        return try run(.usb(OpenedUSBDevice(transport, driver: driver, origin: origin)), context: context).devices[0].glucose[0]
    }

    /// Imports from an open ATT bearer (a simulated peripheral, a replayed link).
    package func importOneBLE(
        over bearer: any ATTBearer, origin: String, recordTo: URL? = nil, recordingClock: @escaping () -> Date = Date.init,
        limits: BLESessionLimits = .live(), progress: DownloadProgress = .silent, cancellation: ImportCancellation? = nil
    ) throws(ImportError) -> DeviceImport {
        let context = ImportContext(
            recordTo: recordTo, recordingClock: recordingClock, limits: limits, progress: progress, cancellation: cancellation)
        return try run(.bluetooth(ConnectedPeer(bearer, origin: origin)), context: context).devices[0]
    }
}
