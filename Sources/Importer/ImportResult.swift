import CaptureBluetooth
import CaptureUSB
import Drivers
import Foundation
import Ingest
import Model
import Store
import Transport

/// What one import did: one ``DeviceImport`` per device read (a capture of a whole bus or of
/// several Bluetooth links may hold more than one; a live device is one).
public struct ImportResult: Sendable {
    package var devices: [DeviceImport]

    package init(devices: [DeviceImport]) {
        self.devices = devices
    }
}

/// What one device's import stored, whatever its bus: its glucose sources, its activity, and,
/// for a Bluetooth device, its identity and the session as the drivers read it.
package struct DeviceImport: Sendable {
    package var mode: ImportMode
    /// How a capture was played to the drivers; nil for a live device.
    package var replayMode: ReplayMode?
    /// Where the records came from: the capture's path, or the device as the import named it.
    package var origin: String?
    /// The USB capture's format; nil for a live device and for a btsnoop capture.
    package var captureFormat: USBCaptureFormat?
    /// The Bluetooth device's identity and session; nil for a USB device.
    package var identity: BLEDeviceIdentity?
    package var session: BLESessionResult?
    /// Each glucose source's import: a USB reader's one, or one per Bluetooth glucose service.
    package var glucose: [GlucoseImport]
    /// Activity samples of every Bluetooth activity service, as one source.
    package var activity: ActivityImport?
    /// Exercise a Bluetooth meter logged with its readings.
    package var meterExercise: ActivityImport?
    /// A FIT file's type and messages; nil for any other import.
    package var fit: FITFileImport?
    /// Named problems the Bluetooth drivers met (values left out, refused or incomplete downloads).
    package var problems: [BLEDriverError]
    package var notes: [String]

    /// A USB device's import: its one glucose source.
    init(usb glucose: GlucoseImport) {
        self.init(
            mode: glucose.mode, replayMode: glucose.replayMode, origin: glucose.origin, captureFormat: glucose.captureFormat,
            identity: nil, session: nil, glucose: [glucose], activity: nil, meterExercise: nil, problems: [], notes: [])
    }

    init(
        mode: ImportMode, replayMode: ReplayMode?, origin: String?, captureFormat: USBCaptureFormat?, identity: BLEDeviceIdentity?,
        session: BLESessionResult?, glucose: [GlucoseImport], activity: ActivityImport?, meterExercise: ActivityImport?,
        problems: [BLEDriverError], notes: [String]
    ) {
        self.mode = mode
        self.replayMode = replayMode
        self.origin = origin
        self.captureFormat = captureFormat
        self.identity = identity
        self.session = session
        self.glucose = glucose
        self.activity = activity
        self.meterExercise = meterExercise
        self.problems = problems
        self.notes = notes
    }

    /// Notifications on characteristics no driver reads: handle, the characteristic's UUID when
    /// discovery found one there, and how many arrived. Empty for a USB device.
    package var unclaimed: [(handle: UInt16, uuid: BluetoothUUID?, count: Int)] {
        guard let session else { return [] }
        return session.unclaimed.sorted { $0.key < $1.key }.map { handle, count in
            (handle, session.database.characteristic(valueHandle: handle)?.uuid, count)
        }
    }
}

/// The activity one Bluetooth import stored for one source.
package struct ActivityImport: Sendable {
    package var source: DeviceSource
    /// The services the activity was read through, when the source is a Bluetooth device's.
    package var services: [DeviceFamily] = []
    package var summary: ActivityImportSummary
    /// The sessions offered to the store (new or already stored), by start.
    package var sessions: [ExerciseSession]
    /// Samples or values left out, by reason.
    package var events: [ImportEvent]
    package var notes: [String]
}
