import Drivers
import Foundation
import Model
import Pipeline

/// How one import runs, the same for every source: where its session is recorded, its limits,
/// the progress reporter its drivers report to, and the cancellation that stops it.
public struct ImportContext {
    /// Also write the live session here: a usbmon pcap for USB, a btsnoop file for Bluetooth.
    /// Ignored for a capture.
    package var recordTo: URL?
    /// The clock that stamps what a recorded Bluetooth session sends.
    package var recordingClock: () -> Date
    /// A capture's replay still running after this long stops, storing nothing.
    package var budget: Duration?
    /// How long a live Bluetooth session listens.
    package var limits: BLESessionLimits
    /// Where drivers report how far the download has come.
    package var progress: DownloadProgress
    /// Stops the import from another thread; nothing of it is stored.
    package var cancellation: ImportCancellation?

    public init(
        recordTo: URL? = nil, recordingClock: @escaping () -> Date = Date.init, budget: Duration? = nil,
        limits: BLESessionLimits = .live(), progress: DownloadProgress = .silent, cancellation: ImportCancellation? = nil
    ) {
        self.recordTo = recordTo
        self.recordingClock = recordingClock
        self.budget = budget
        self.limits = limits
        self.progress = progress
        self.cancellation = cancellation
    }
}
