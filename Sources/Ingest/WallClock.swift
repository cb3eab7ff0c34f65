import Foundation
import Model
import Pipeline

/// Instants of a wall clock that a person sets (a meter's): the method of Tidepool's uploader.
///
/// - With the device's log of its clock changes, the clock's offset from UTC is constant between
///   two logged changes. It is measured at download against the host's clock, then walked back:
///   before a change of +Δ the offset was the later offset − Δ.
/// - Without one, a record's wall time is read in the store's zone after removing the clock error
///   measured at download (constant over the download).
///
/// A clock error smaller than the clock's resolution counts as zero: the host's wall time is
/// compared at that resolution, so a minute-resolution meter read 40 s after the minute is on time.
/// See Tidepool's uploader, https://github.com/tidepool-org/uploader `docs/BootstrappingToUTC.md`
/// and `lib/TimezoneOffsetUtil.js`.
package enum WallClock {
    /// The instant a wall clock shows in `zone`. A wall time the zone's clocks skip (02:30 on the
    /// day clocks go forward) is read with the UTC offset in force before the change, so it
    /// lands where a clock not yet moved forward would put it (02:30 EST = 03:30 EDT); a wall time
    /// they repeat is the earlier of the two instants (01:30 on the day clocks go back is the
    /// daylight-time 01:30).
    package static func instant(wall seconds: Int64, in zone: TimeZone) -> Date {
        let wall = TimeInterval(seconds)
        let before = zone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - 86_400))
        let offsets = Set([
            before, zone.secondsFromGMT(for: Date(timeIntervalSince1970: wall)),
            zone.secondsFromGMT(for: Date(timeIntervalSince1970: wall + 86_400)),
        ])
        let matching = offsets.map { Date(timeIntervalSince1970: wall - TimeInterval($0)) }
            .filter { zone.secondsFromGMT(for: $0) == Int(wall - $0.timeIntervalSince1970) }
        return matching.min() ?? Date(timeIntervalSince1970: wall - TimeInterval(before))
    }

    /// The host's instant as a wall clock in `zone`, seconds since 1970 read without a zone.
    static func wall(of instant: Date, in zone: TimeZone) -> TimeInterval {
        instant.timeIntervalSince1970 + TimeInterval(zone.secondsFromGMT(for: instant))
    }

    /// Device wall clock − host wall clock in `zone`, in seconds; 0 when smaller than the clock's
    /// `resolution`, otherwise compared with the host's wall time cut to that resolution.
    package static func error(deviceWall: Int64, host: Date, zone: TimeZone, resolution: Int64) -> Int64 {
        let hostWall = wall(of: host, in: zone)
        guard abs(TimeInterval(deviceWall) - hostWall) >= TimeInterval(resolution) else { return 0 }
        let cut = CivilDate.floorDiv(Int64(hostWall.rounded(.down)), resolution) * resolution
        return deviceWall - cut
    }

    /// How many of `changes` (oldest first) each record came after. Records of the stream a change
    /// is logged in are ordered against it by index. Other records are ordered by wall time: a
    /// record at or after the change's old time came after it; when the clock went back, a record
    /// in the repeated span came after it once its stream's times (in index order) went back.
    static func segments(of records: [DeviceGlucoseRecord], changes: [DeviceClockChange]) -> [String: Int] {
        var segment: [String: Int] = [:]
        let byStream = Dictionary(grouping: records, by: \.stream)
        for (stream, streamRecords) in byStream {
            var passed = 0
            var previous: Int64?
            for record in streamRecords.sorted(by: { $0.index < $1.index }) {
                while passed < changes.count, isAfter(record, changes[passed], stream: stream, previous: previous) {
                    passed += 1
                }
                segment[record.recordKey] = passed
                previous = record.deviceSeconds
            }
        }
        return segment
    }

    private static func isAfter(_ record: DeviceGlucoseRecord, _ change: DeviceClockChange, stream: RecordStream, previous: Int64?) -> Bool {
        if change.stream == stream { return record.index > change.index }
        let time = record.deviceSeconds
        if time >= change.from { return true }
        guard change.delta < 0, time >= change.to, let previous else { return false }
        return time < previous
    }

    /// `+1 h 0 min`, `−3 h 10 min`, `+7 min`, `0 s`.
    package static func signed(_ seconds: Int64) -> String {
        let sign = seconds > 0 ? "+" : seconds < 0 ? "−" : ""
        let magnitude = seconds.magnitude
        if magnitude >= 3600 { return "\(sign)\(magnitude / 3600) h \(magnitude / 60 % 60) min" }
        if magnitude >= 60, magnitude % 60 == 0 { return "\(sign)\(magnitude / 60) min" }
        if magnitude >= 60 { return "\(sign)\(magnitude / 60) min \(magnitude % 60) s" }
        return "\(sign)\(magnitude) s"
    }

    /// `UTC−05:00`.
    static func utcOffset(_ seconds: Int64) -> String {
        let sign = seconds < 0 ? "−" : "+"
        let magnitude = seconds.magnitude
        let hours = magnitude / 3600
        let minutes = magnitude / 60 % 60
        return "UTC\(sign)\(hours < 10 ? "0" : "")\(hours):\(minutes < 10 ? "0" : "")\(minutes)"
    }

    /// The changes of `zone`'s UTC offset between `first` and `last`, as the local dates they
    /// happen on.
    static func zoneChanges(in zone: TimeZone, from first: Date, to last: Date) -> [String] {
        var dates: [String] = []
        var cursor = first
        while dates.count < 50, let next = zone.nextDaylightSavingTimeTransition(after: cursor), next <= last {
            let local = Int64(wall(of: next, in: zone).rounded(.down))
            dates.append(String(CivilDate.wallClock(local).prefix(10)))
            cursor = next
        }
        return dates
    }
}
