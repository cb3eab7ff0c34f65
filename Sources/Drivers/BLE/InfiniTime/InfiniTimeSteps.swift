import Foundation
import Model

/// One read of an InfiniTime watch's step counter: when the host got it, the watch's wall clock
/// then, and the count.
public struct InfiniTimeStepRead: Sendable, Equatable {
    package var hostTime: Date
    /// The watch's wall clock at the read, in seconds since 1970-01-01T00:00 read without a zone.
    package var watchClock: Double
    package var steps: UInt32

    public init(hostTime: Date, watchClock: Double, steps: UInt32) {
        self.hostTime = hostTime
        self.watchClock = watchClock
        self.steps = steps
    }

    /// The UTC minute of the read, counted from 1970.
    package var minute: Int64 { CivilDate.floorDiv(Int64(hostTime.timeIntervalSince1970.rounded(.down)), 60) }
    /// The watch's day (days since 1970 on its wall clock): its counter restarts at 0 when it changes.
    package var watchDay: Int64 { CivilDate.floorDiv(Int64(watchClock.rounded(.down)), 86_400) }
    /// The UTC minute holding the watch's last midnight.
    package var midnightMinute: Int64 {
        let sinceMidnight = watchClock - Double(watchDay * 86_400)
        return CivilDate.floorDiv(Int64((hostTime.timeIntervalSince1970 - sinceMidnight).rounded(.down)), 60)
    }
}

/// The last read the store holds for a watch, kept as two cursors: `steps` (the read's UTC
/// minute × 2³² + its count, so it only grows) and `steps-day` (the watch's day then).
public struct InfiniTimeStepCursor: Sendable, Equatable {
    package static let stepsStream: RecordStream = "steps"
    package static let dayStream: RecordStream = "steps-day"

    package var minute: Int64
    package var steps: UInt32
    package var watchDay: Int64

    package init(minute: Int64, steps: UInt32, watchDay: Int64) {
        self.minute = minute
        self.steps = steps
        self.watchDay = watchDay
    }

    package init(_ read: InfiniTimeStepRead) {
        self.init(minute: read.minute, steps: read.steps, watchDay: read.watchDay)
    }

    /// The cursor the store's two values give; nil when either is missing or out of range.
    public init?(steps: Int64?, day: Int64?) {
        guard let steps, let day, steps >= 0 else { return nil }
        self.init(minute: steps >> 32, steps: UInt32(truncatingIfNeeded: steps), watchDay: day)
    }

    public var cursors: RecordCursors { [Self.stepsStream: minute << 32 | Int64(steps), Self.dayStream: watchDay] }
}

/// Turns a watch's step-counter reads into steps per UTC minute.
///
/// The counter holds the steps since the watch's midnight, so each read adds what the counter
/// gained since the last read stored, spread evenly over the minutes after that read's minute
/// (and not before the watch's midnight) up to its own (whole steps, the remainder on the last
/// minutes). The first read of a watch day
/// (or ever) counts from 0 over the minutes since the watch's midnight (after the last read
/// stored). A counter lower than the last read of the same day means the watch restarted: it
/// counts from 0 again, never negative steps. Reads are taken one per minute, the last of each;
/// a read in the minute of the last one stored leaves its steps to the next read (that minute is
/// stored already); reads not newer than the stored one add nothing, so the same read twice
/// adds nothing.
///
/// After Gadgetbridge's handling of the PineTime step count (PineTimeJFSupport.java): steps minus
/// those already recorded today, as a per-timestamp sample.
public struct InfiniTimeStepLedger: Sendable {
    /// Steps per minute above which a gain is not believed (a count carried over from the day
    /// before, InfiniTime issue 1270): it is counted as an event and not stored.
    package static let maximumCadence = 300

    /// Steps per UTC minute (minute number → steps), ascending.
    public private(set) var minutes: [(minute: Int64, steps: Int)] = []
    /// The last read accounted for; nil when none was.
    public private(set) var cursor: InfiniTimeStepCursor?
    package private(set) var notes: [String] = []
    package private(set) var events = EventCounter()
    /// Whether any read moved the cursor.
    package private(set) var advanced = false

    public init(stored: InfiniTimeStepCursor?) {
        cursor = stored
    }

    /// Accounts for `reads`, in the order they were made.
    public mutating func take(_ reads: [InfiniTimeStepRead]) {
        var lastOfMinute: [InfiniTimeStepRead] = []
        for read in reads {
            if let last = lastOfMinute.last, last.minute >= read.minute {
                if last.minute == read.minute { lastOfMinute[lastOfMinute.count - 1] = read } else { events.count("step-read-out-of-order") }
            } else {
                lastOfMinute.append(read)
            }
        }
        for read in lastOfMinute { take(read) }
    }

    private mutating func take(_ read: InfiniTimeStepRead) {
        var start = read.midnightMinute
        var gained = Int(read.steps)
        if let cursor {
            guard read.minute > cursor.minute else {
                if read.minute < cursor.minute || read.steps == cursor.steps {
                    events.count("step-read-already-stored")
                } else {
                    notes.append(
                        "the step count \(read.steps) was read in the minute of the last read stored (\(cursor.steps)): "
                            + "its steps are counted with the next read")
                }
                return
            }
            // Within a day too: the steps since the last read were all made since the watch's midnight.
            start = max(start, cursor.minute + 1)
            if read.watchDay <= cursor.watchDay {
                if read.steps >= cursor.steps {
                    gained = Int(read.steps - cursor.steps)
                } else {
                    notes.append(
                        "the step count went down from \(cursor.steps) to \(read.steps) on the same watch day: "
                            + "the watch restarted, its steps counted from 0")
                }
            }
        }
        start = min(start, read.minute)
        let count = Int(read.minute - start + 1)
        cursor = InfiniTimeStepCursor(read)
        advanced = true
        guard gained <= Self.maximumCadence * count else {
            events.count("implausible-step-count")
            notes.append(
                "\(gained) steps over \(count) minute\(count == 1 ? "" : "s") up to \(CivilDate.wallClock(read.minute * 60))Z "
                    + "is more than \(Self.maximumCadence) a minute: not stored")
            return
        }
        let base = gained / count
        let extra = gained % count
        for offset in 0..<count {
            minutes.append((start + Int64(offset), base + (offset >= count - extra ? 1 : 0)))
        }
    }
}
