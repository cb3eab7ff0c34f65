import Foundation
import Model

/// A glucose record as a driver read it: the device's own clock, value and flags, before its
/// time is mapped to UTC.
public struct DeviceGlucoseRecord: Sendable, Equatable {
    /// The record stream within the device (e.g. `egv`, `meter`); indexes count per stream.
    public var stream: RecordStream
    /// The device's running index of the record within its stream.
    public var index: Int64
    /// The device's internal clock for the record, seconds since `DeviceClock.epoch`.
    public var deviceSeconds: Int64
    /// The wall clock the device displayed for the record, seconds since `DeviceClock.epoch`
    /// read without a zone, when the device keeps one.
    public var displaySeconds: Int64?
    public var value: Double
    public var unit: GlucoseUnit
    public var kind: ReadingKind
    public var flag: RangeFlag?
    public var trend: Trend?
    public var noise: Int?
    /// What the device recorded with the reading (e.g. a meter's meal or activity markers, in
    /// words), nil when nothing.
    public var note: String?

    public init(
        stream: RecordStream, index: Int64, deviceSeconds: Int64, displaySeconds: Int64?, value: Double,
        unit: GlucoseUnit = .milligramsPerDeciliter, kind: ReadingKind, flag: RangeFlag? = nil,
        trend: Trend? = nil, noise: Int? = nil, note: String? = nil
    ) {
        self.stream = stream
        self.index = index
        self.deviceSeconds = deviceSeconds
        self.displaySeconds = displaySeconds
        self.value = value
        self.unit = unit
        self.kind = kind
        self.flag = flag
        self.trend = trend
        self.noise = noise
        self.note = note
        recordKey = Self.recordKey(stream: stream, index: index)
    }

    /// `<stream>:<index>`, as `"\(stream):\(index)"` writes it, its bytes written in place at
    /// their exact length (up to 15 bytes, a string without a heap allocation): it is made for
    /// every record a driver reads.
    static func recordKey(stream: RecordStream, index: Int64) -> String {
        var digits = 0
        var rest = index.magnitude
        repeat {
            digits += 1
            rest /= 10
        } while rest > 0
        var stream = stream.rawValue
        return stream.withUTF8 { prefix in
            let start = prefix.count + 1 + (index < 0 ? 1 : 0)
            return String(unsafeUninitializedCapacity: start + digits) { buffer in
                _ = buffer.initialize(from: prefix)
                buffer[prefix.count] = UInt8(ascii: ":")
                if index < 0 { buffer[prefix.count + 1] = UInt8(ascii: "-") }
                var rest = index.magnitude
                for position in stride(from: start + digits - 1, through: start, by: -1) {
                    buffer[position] = UInt8(truncatingIfNeeded: 48 + rest % 10)
                    rest /= 10
                }
                return start + digits
            }
        }
    }

    /// The key the store finds this record by on a re-import; `<stream>:<index>` unless the
    /// driver needs more to tell records apart.
    public var recordKey: String
}

/// What the download learnt of the device's clock.
public struct DeviceClock: Sendable, Equatable {
    /// What the device's internal clock is meant to keep.
    public enum Basis: String, Sendable {
        /// Universal time, free of the user's settings (Dexcom system time).
        case universal
        /// The user's local wall clock, without a zone (most meters).
        case localWallClock
    }

    /// The instant the device's seconds count from, reading the count as UTC.
    public var epoch: Date
    public var basis: Basis
    /// The device's internal clock read during the download (seconds since `epoch`).
    public var deviceNow: Int64?
    /// The host's clock when that reading arrived, when known (live sessions and timestamped
    /// captures; not transcripts).
    public var hostNow: Date?
    /// The step of the device's clock reading in seconds (60 for a clock read as hours and
    /// minutes): a difference from the host's clock smaller than this is no error.
    public var resolution: Int64
    /// What the device calls its time base, when it is not a clock read during the download
    /// (`Session Start Time` for a Bluetooth CGM): named when it is implausible.
    public var epochName: String?

    public init(
        epoch: Date, basis: Basis, deviceNow: Int64? = nil, hostNow: Date? = nil, resolution: Int64 = 1, epochName: String? = nil
    ) {
        self.epoch = epoch
        self.basis = basis
        self.deviceNow = deviceNow
        self.hostNow = hostNow
        self.resolution = max(1, resolution)
        self.epochName = epochName
    }
}

/// A change of a device's wall clock that the device logged itself (a FreeStyle Libre's
/// `$arresult?` type 5 row): at that moment the clock was set from `from` to `to`.
public struct DeviceClockChange: Sendable, Equatable {
    /// The record stream the change is logged in, and its index there: records of the same
    /// stream are ordered against the change by index.
    public var stream: RecordStream
    public var index: Int64
    /// The wall clock before and after the change, seconds since `DeviceClock.epoch`.
    public var from: Int64
    public var to: Int64

    public init(stream: RecordStream, index: Int64, from: Int64, to: Int64) {
        self.stream = stream
        self.index = index
        self.from = from
        self.to = to
    }

    /// How far the clock was moved, in seconds (positive: forward).
    public var delta: Int64 { to - from }
}

/// The glucose a driver read in one session (a `DriverDownload`'s glucose part): the records
/// with the clock that times them, device-neutral.
public struct GlucoseDownload: Sendable {
    public var source: DeviceSource
    public var clock: DeviceClock
    public var glucose: [DeviceGlucoseRecord]
    /// Records the device returned, whether they are readings or not.
    public var recordsRead: Int
    /// Records read but not readings, counted by name.
    public var events: [ImportEvent]
    /// The highest record index read per stream.
    public var cursors: RecordCursors
    /// Remarks for the import report.
    public var notes: [String]
    /// The device's own log of changes to its wall clock, oldest first; nil when the device keeps
    /// none (empty: it keeps one and nothing was changed).
    public var clockChanges: [DeviceClockChange]?

    public init(
        source: DeviceSource, clock: DeviceClock, glucose: [DeviceGlucoseRecord], recordsRead: Int,
        events: [ImportEvent] = [], cursors: RecordCursors = [:], notes: [String] = [],
        clockChanges: [DeviceClockChange]? = nil
    ) {
        self.clockChanges = clockChanges
        self.source = source
        self.clock = clock
        self.glucose = glucose
        self.recordsRead = recordsRead
        self.events = events
        self.cursors = cursors
        self.notes = notes
    }
}
