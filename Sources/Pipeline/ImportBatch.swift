import Foundation
import Model

/// Everything one import hands to the store, written in one transaction.
public struct ImportBatch: Sendable, Codable {
    public var source: DeviceSource
    /// When the import started, by the host's clock.
    public var startedAt: Date
    /// How the device was read.
    public var mode: ImportMode
    /// Where the data came from: a capture path, or the USB bus/address.
    public var origin: String?
    public var clock: ClockReport
    public var glucose: [GlucoseReading]
    /// Records the device returned, whether stored or not.
    public var recordsRead: Int
    /// Records read but not stored as readings, by reason.
    public var events: [ImportEvent]
    /// The highest device record index read, per record stream (e.g. `egv`, `meter`):
    /// the next import of this source starts after it.
    public var cursors: RecordCursors
    /// Plain-language remarks for the import report (e.g. the time fallback used).
    public var notes: [String]

    public init(
        source: DeviceSource, startedAt: Date, mode: ImportMode, origin: String?, clock: ClockReport,
        glucose: [GlucoseReading], recordsRead: Int, events: [ImportEvent] = [],
        cursors: RecordCursors = [:], notes: [String] = []
    ) {
        self.source = source
        self.startedAt = startedAt
        self.mode = mode
        self.origin = origin
        self.clock = clock
        self.glucose = glucose
        self.recordsRead = recordsRead
        self.events = events
        self.cursors = cursors
        self.notes = notes
    }
}
