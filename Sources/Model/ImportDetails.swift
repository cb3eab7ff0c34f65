import Foundation

/// How the UTC instants of a batch were derived from the device's clock.
public enum TimeMethod: String, Sendable, Codable {
    /// UTC = host clock at download − (device clock now − device clock of the record).
    case hostAnchored = "host-anchored"
    /// No host timestamp was available (e.g. a transcript capture): the device's own clock was
    /// taken as UTC.
    case deviceClockAsUTC = "device-clock-as-utc"
    /// No host timestamp was available: the device's local wall clock was read in the store's zone.
    case deviceLocalTime = "device-local-time"
}

/// How a wall clock (a meter's, set by a person) was placed against the host's clock.
public enum WallClockPlacement: String, Sendable, Codable {
    /// With the device's own log of clock changes: its offset from UTC, measured against the host
    /// at download, is walked back through every logged change.
    case changeLog = "change log walked back from the host clock"
    /// Without a change log: record times read in the store's zone after removing the clock error
    /// measured against the host at download.
    case correctedLocalTime = "local time corrected by the clock error at download"
}

/// The device's clock against the host's, as seen during one import.
public struct ClockReport: Sendable, Equatable, Codable {
    /// The host's clock when the device's clock was read, if known.
    public var hostTime: Date?
    /// The device's clock at that moment, rendered as an instant as the device would read it.
    public var deviceTime: Date?
    /// host − device, in seconds, when both are known (for a wall clock: the clock error,
    /// negated, to the clock's resolution).
    public var offsetSeconds: Double?
    public var method: TimeMethod
    /// For a wall clock placed by the host's clock (method `host-anchored`), how.
    public var wallClock: WallClockPlacement?

    public init(hostTime: Date?, deviceTime: Date?, method: TimeMethod) {
        self.hostTime = hostTime
        self.deviceTime = deviceTime
        self.method = method
        if let hostTime, let deviceTime {
            offsetSeconds = hostTime.timeIntervalSince(deviceTime)
        } else {
            offsetSeconds = nil
        }
    }
}

/// A named, counted occurrence an import reports without storing it as a reading
/// (e.g. `display-only`, `SENSOR_NOT_ACTIVE`).
public struct ImportEvent: Sendable, Equatable, Codable {
    public var name: String
    public var count: Int

    public init(name: String, count: Int) {
        self.name = name
        self.count = count
    }
}

/// How a device was read for an import; kept in the store as its raw value.
public enum ImportMode: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// Read from the device itself.
    case live
    /// Replayed from a capture of a whole conversation, the host's requests answered from it.
    case replayConversation = "replay-conversation"
    /// Replayed from a capture the host only listened to (notifications, a passive sniff).
    case replayPassive = "replay-passive"

    public var description: String { rawValue }
}
