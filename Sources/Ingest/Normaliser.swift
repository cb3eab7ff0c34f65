import Foundation
import Model

/// Turns what a driver read into what the store takes: UTC instants from the device's clock,
/// canonical mg/dL, the counts and cursors of the import.
public enum Normaliser {
    /// A device clock further than this from the host's is called out in the import report.
    public static let clockWarningThreshold: TimeInterval = 15 * 60

    /// The import batch for `download`.
    ///
    /// Time: with the host's clock at the moment the device's clock was read, a record's instant
    /// is `host − (device now − device record)`: immune to a wrong device clock, to the user
    /// resetting it, and to DST. Without it (a transcript has no timestamps) the device clock is
    /// read as UTC (universal clocks) or as a wall clock in `timeZone`, and the report says so.
    public static func batch(
        from download: DeviceDownload, mode: String, origin: String?, startedAt: Date, timeZone: TimeZone
    ) -> ImportBatch {
        let clock = download.clock
        var notes = download.notes
        let epoch = clock.epoch.timeIntervalSince1970
        let report: ClockReport
        let instant: (Int64) -> Date
        let deviceNowInstant = clock.deviceNow.map { deviceInstant(epoch + TimeInterval($0), clock.basis, timeZone) }
        if let hostNow = clock.hostNow, let deviceNow = clock.deviceNow {
            report = ClockReport(hostTime: hostNow, deviceTime: deviceNowInstant, method: .hostAnchored)
            let anchor = hostNow.timeIntervalSince1970.rounded()
            instant = { Date(timeIntervalSince1970: anchor - TimeInterval(deviceNow - $0)) }
            if let offset = report.offsetSeconds, abs(offset) > clockWarningThreshold {
                notes.append("the device clock is \(describe(offset)) \(offset > 0 ? "behind" : "ahead of") the host clock; readings were placed by the host clock")
            }
        } else {
            // No host anchor: the capture has no timestamps, or the device's clock was not read
            // (or not trusted).
            let clockRead = clock.deviceNow != nil
            switch clock.basis {
            case .universal:
                report = ClockReport(hostTime: nil, deviceTime: deviceNowInstant, method: .deviceClockAsUTC)
                notes.append(clockRead
                    ? "no host timestamps: the device's internal clock was taken as UTC"
                    : "the device's clock was not read: record times were taken as UTC")
            case .localWallClock:
                report = ClockReport(hostTime: nil, deviceTime: deviceNowInstant, method: .deviceLocalTime)
                notes.append(clockRead
                    ? "no host timestamps: the device's clock was read as local time in \(timeZone.identifier)"
                    : "the device's clock was not read: record times were read as local time in \(timeZone.identifier)")
            }
            instant = { deviceInstant(epoch + TimeInterval($0), clock.basis, timeZone) }
        }
        let readings = download.glucose.map { record in
            GlucoseReading(
                time: instant(record.deviceSeconds),
                mgdl: record.unit.milligramsPerDeciliter(record.value),
                unit: record.unit,
                kind: record.kind,
                flag: record.flag,
                trend: record.trend,
                noise: record.noise,
                recordKey: record.recordKey,
                deviceTime: record.deviceSeconds,
                displayTime: record.displaySeconds.map { CivilDate.wallClock(Int64(epoch) + $0) },
                note: record.note)
        }
        return ImportBatch(
            source: download.source, startedAt: startedAt, mode: mode, origin: origin, clock: report,
            glucose: readings, recordsRead: download.recordsRead, events: download.events,
            cursors: download.cursors, notes: notes)
    }

    /// The instant a device clock value stands for when nothing better is known.
    static func deviceInstant(_ seconds: TimeInterval, _ basis: DeviceClock.Basis, _ zone: TimeZone) -> Date {
        let asUTC = Date(timeIntervalSince1970: seconds)
        guard basis == .localWallClock else { return asUTC }
        // The wall clock `asUTC` shows, in `zone`: subtract the zone's offset at that moment,
        // then correct once for an offset change between the two instants.
        let first = asUTC.addingTimeInterval(-TimeInterval(zone.secondsFromGMT(for: asUTC)))
        return asUTC.addingTimeInterval(-TimeInterval(zone.secondsFromGMT(for: first)))
    }

    /// "7 months", "3 h 20 min", "42 s".
    static func describe(_ offset: TimeInterval) -> String {
        let seconds = Int(abs(offset).rounded())
        switch seconds {
        case ..<120: return "\(seconds) s"
        case ..<7200: return "\(seconds / 60) min"
        case ..<(3 * 86_400): return "\(seconds / 3600) h \(seconds / 60 % 60) min"
        case ..<(61 * 86_400): return "\(seconds / 86_400) days"
        default: return "\(seconds / (30 * 86_400)) months"
        }
    }
}
