import CaptureBluetooth
import CaptureUSB
import Drivers
import Ingest
import Store
import Transport

/// Why an import (USB or Bluetooth, live or replayed) did not happen. Nothing was written to the
/// store in any of these cases.
public enum ImportError: Error, CustomStringConvertible {
    /// A USB capture could not be read.
    case capture(CaptureError)
    /// A btsnoop capture could not be read.
    case btsnoop(BTSnoopError)
    /// The session with a Bluetooth device (live or replayed) failed.
    case session(BLEDriverError)
    /// The capture holds no bulk or interrupt traffic to decode.
    case noConversation(capture: String)
    /// The capture's device descriptors name a device no driver supports.
    case unsupportedDevice(capture: String, ids: [String])
    /// The capture has no device descriptors, so the driver must be named.
    case driverNotDetected(capture: String)
    case unknownDriver(String, known: [String])
    /// A glucose family's session returned no glucose download (a driver that breaks the contract).
    case noGlucose(family: DeviceFamily)
    /// More than one device in the capture could be the one meant.
    case ambiguousDevice(capture: String, devices: [String])
    /// The driver could not make sense of the device, the capture or the file: its family's
    /// error, naming what was wrong and where.
    case driver(any DriverError)
    /// The files of a folder or a watch could not be listed or read, or none could be imported.
    case files(FITImportError)
    case transport(TransportError)
    /// A transfer with a live device timed out or failed (a reader gone quiet, a stalled
    /// endpoint): the device as the import named it, and the transfer's error.
    case transfer(device: String, TransportError)
    case store(StoreError)
    /// The device's clock reply would put every record outside the plausible time window.
    case implausibleClock(ImplausibleClockError)
    /// The import was cancelled (`ImportCancellation`), saying why.
    case cancelled(CancellationReason)
    /// One of the several devices a capture recorded could not be imported: which one (its
    /// position and label), and why. Every device of a capture is read and checked before any is
    /// written, so none of them was stored.
    indirect case capturedDevice(capture: String, position: Int, count: Int, device: String, ImportError)

    public var description: String {
        switch self {
        case .capture(let error): error.description
        case .btsnoop(let error): error.description
        case .session(let error): error.description
        case .noConversation(let capture): "\(capture) holds no bulk or interrupt transfers: there is no device conversation to replay"
        case .unsupportedDevice(let capture, let ids):
            "\(capture) records \(ids.joined(separator: ", ")), which no glucobridge driver supports"
        case .driverNotDetected(let capture):
            "\(capture) has no USB device descriptors and its traffic is not that of a supported device; name the driver with --driver (e.g. --driver dexcom) to see why it does not decode"
        case .unknownDriver(let name, let known): "no driver is called \(name); known drivers: \(known.joined(separator: ", "))"
        case .noGlucose(let family): "the \(family) driver read no glucose download"
        case .ambiguousDevice(let capture, let devices):
            "\(capture) records several devices that could be meant (\(devices.joined(separator: ", "))); capture one device at a time"
        case .driver(let error): "\(error)"
        case .files(let error): error.description
        case .transport(let error): error.description
        case .transfer(let device, let error): "reading \(device): \(error.description)"
        case .store(let error): error.description
        case .implausibleClock(let error): error.description
        case .cancelled(let why): why.description
        case .capturedDevice(let capture, let position, let count, let device, let error):
            "\(capture), device \(position) of \(count) (\(device)): \(error.description); none of the \(count) devices it records was stored"
        }
    }
}

extension ImportError {
    /// This error with `device` named, when it is a transfer that timed out or failed on a live
    /// device (whose transport errors name only the endpoint); any other error as it is.
    func naming(device: String) -> ImportError {
        let carried: TransportError? =
            switch self {
            case .transport(let error): error
            case .driver(let error): error.transportError
            default: nil
            }
        guard let carried else { return self }
        switch carried {
        case .timeout, .transferFailed: return .transfer(device: device, carried)
        default: return self
        }
    }
}

/// Why an import was cancelled before it wrote anything.
public enum CancellationReason: Sendable, Equatable, CustomStringConvertible {
    /// glucobridge is stopping; `abandoned` names what was abandoned (`the import`, `the read
    /// of C0:FF:EE:00:00:01`).
    case stopping(abandoned: String)

    public var description: String {
        switch self {
        case .stopping(let abandoned): "glucobridge is stopping; \(abandoned) was abandoned before anything was written"
        }
    }
}
