import Model
import Pipeline

/// What a driver is given besides its transport: what the store already holds for a device, and
/// where to report how far the download has come. The import pipeline makes one per import; a
/// driver never reaches for the store or a global.
package struct DownloadContext: Sendable {
    /// The highest record index already stored per stream for a device (its source, known once
    /// the device has said who it is); those streams are read only as far back as needed. The
    /// pipeline reads the store's cursors before the session, so asking cannot fail.
    package var cursors: @Sendable (DeviceSource) -> RecordCursors
    /// Where the driver reports its progress.
    package var progress: DownloadProgress

    package init(
        cursors: @escaping @Sendable (DeviceSource) -> RecordCursors = { _ in [:] }, progress: DownloadProgress = .silent
    ) {
        self.cursors = cursors
        self.progress = progress
    }

    /// The cursors a store holds (`SharedStore.cursorsBySource()`: keyed by family and serial,
    /// the model left out), asked by the source a device says it is.
    package init(stored: [DeviceSource: RecordCursors], progress: DownloadProgress = .silent) {
        self.init(cursors: { source in stored[DeviceSource(family: source.family, serial: source.serial)] ?? [:] }, progress: progress)
    }

    /// Nothing stored yet, no progress shown: a first download, as a simulator records one.
    package static var fresh: DownloadContext { DownloadContext() }

    /// The highest record index stored for `stream` of `source`, or nil.
    package func cursor(_ source: DeviceSource, stream: RecordStream) -> Int64? {
        cursors(source)[stream]
    }
}
