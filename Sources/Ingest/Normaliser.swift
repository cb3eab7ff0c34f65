import Foundation
import Model
import Pipeline

/// Turns what a driver read into what the store takes: UTC instants from the device's clock,
/// canonical mg/dL, the counts and cursors of the import.
package enum Normaliser {
    /// A device clock further than this from the host's is called out in the import report.
    package static let clockWarningThreshold: TimeInterval = 15 * 60

    /// The import batch for `download`, holding only readings inside `window`.
    ///
    /// Time, by the device's clock:
    /// - a universal clock (the Dexcom's system time) with the host's clock at the moment it was
    ///   read: a record's instant is `host − (device now − device record)`, immune to a wrong device
    ///   clock and to the user resetting it;
    /// - a wall clock a person sets (meters): see ``WallClock`` (the device's change log walked
    ///   back from the offset measured at download, or the wall time read in `timeZone` less the
    ///   clock error measured at download);
    /// - without the host's clock (a transcript has no timestamps) the device clock is read as UTC
    ///   (universal clocks) or as a wall clock in `timeZone`, and the report says so.
    ///
    /// Throws when the device's clock would put every reading outside `window`.
    package static func batch(
        from download: GlucoseDownload, mode: ImportMode, origin: String?, startedAt: Date, timeZone: TimeZone,
        window: PlausibleWindow
    ) throws(ImplausibleClockError) -> ImportBatch {
        var clock = download.clock
        var notes = download.notes
        if let host = clock.hostNow, !window.contains(host) {
            notes.append("the capture's timestamp of the device's clock reading (\(PlausibleWindow.utc(host))) is implausible and was not used")
            clock.hostNow = nil
        }
        let epoch = clock.epoch.timeIntervalSince1970
        let report: ClockReport
        // A record's instant from its device seconds and key: the record itself is not handed
        // over, which copied it whole (its strings retained and released) for every record.
        let instant: (_ deviceSeconds: Int64, _ recordKey: String) -> Date
        let deviceNowInstant = clock.deviceNow.map { deviceInstant(epoch + TimeInterval($0), clock.basis, timeZone) }
        if clock.basis == .localWallClock, let hostNow = clock.hostNow, let deviceNow = clock.deviceNow {
            let placed = placeWallClock(download, clock: clock, hostNow: hostNow, deviceNow: deviceNow, timeZone: timeZone)
            (report, instant) = (placed.report, placed.instant)
            notes += placed.notes
        } else if let hostNow = clock.hostNow, let deviceNow = clock.deviceNow {
            report = ClockReport(hostTime: hostNow, deviceTime: deviceNowInstant, method: .hostAnchored)
            let anchor = hostNow.timeIntervalSince1970.rounded()
            instant = { seconds, _ in Date(timeIntervalSince1970: anchor - TimeInterval(deviceNow - seconds)) }
            if let offset = report.offsetSeconds, abs(offset) > clockWarningThreshold {
                notes.append(
                    "the device clock is \(describe(offset)) \(offset > 0 ? "behind" : "ahead of") the host clock; readings were placed by the host clock"
                )
            }
        } else {
            // No host anchor: the capture has no timestamps, or the device's clock was not read
            // (or not trusted).
            let clockRead = clock.deviceNow != nil
            switch clock.basis {
            case .universal:
                report = ClockReport(hostTime: nil, deviceTime: deviceNowInstant, method: .deviceClockAsUTC)
                notes.append(
                    clockRead
                        ? "no host timestamps: the device's internal clock was taken as UTC"
                        : "the device's clock was not read: record times were taken as UTC")
            case .localWallClock:
                report = ClockReport(hostTime: nil, deviceTime: deviceNowInstant, method: .deviceLocalTime)
                notes.append(
                    clockRead
                        ? "no host timestamps: the device's clock was read as local time in \(timeZone.identifier)"
                        : "the device's clock was not read: record times were read as local time in \(timeZone.identifier)")
                notes += unappliedChangeNotes(download.clockChanges, epoch: Int64(epoch))
            }
            instant = { seconds, _ in deviceInstant(epoch + TimeInterval(seconds), clock.basis, timeZone) }
        }
        // Each record read in place and each reading made where it is stored: through `map`
        // every record and every reading was copied once more, its strings retained and released.
        var readings: [GlucoseReading] = []
        readings.reserveCapacity(download.glucose.count)
        download.glucose.withUnsafeBufferPointer { records in
            for i in records.indices {
                let time = instant(records[i].deviceSeconds, records[i].recordKey)
                readings.append(GlucoseReading(records[i], at: time, epoch: Int64(epoch)))
            }
        }
        if report.method == .deviceLocalTime || report.wallClock == .correctedLocalTime, download.clockChanges == nil {
            notes += zoneChangeNotes(readings.map(\.time), timeZone: timeZone)
        }
        let batch = ImportBatch(
            source: download.source, startedAt: startedAt, mode: mode, origin: origin, clock: report,
            glucose: readings, recordsRead: download.recordsRead, events: download.events,
            cursors: download.cursors, notes: notes)
        return try checked(batch, clock: clock, method: report.method, window: window)
    }

    /// `batch` with its readings outside `window` counted and left out; an error when all of them
    /// are outside and their times came from the device's clock reading (or time base).
    static func checked(_ batch: ImportBatch, clock: DeviceClock, method: TimeMethod, window: PlausibleWindow)
        throws(ImplausibleClockError) -> ImportBatch
    {
        let times = batch.glucose.map { $0.time }
        guard let first = times.min(), let last = times.max(), !times.contains(where: window.contains) else {
            // Usually every reading is inside: the batch is handed on as it is, its readings
            // looked at no more.
            return times.allSatisfy(window.contains) ? batch : window.filter(batch)
        }
        let epoch = clock.epoch.timeIntervalSince1970
        let said: String?
        if let name = clock.epochName {
            said = "the device's \(name) is \(PlausibleWindow.utc(clock.epoch))"
        } else if let deviceNow = clock.deviceNow, let host = clock.hostNow, method != .deviceClockAsUTC, method != .deviceLocalTime {
            let reading = CivilDate.wallClock(Int64(epoch) + deviceNow) + (clock.basis == .universal ? "Z" : "")
            said = "the device's clock read \(reading) (\(deviceNow) s on its own count) when the host's clock read \(PlausibleWindow.utc(host))"
        } else {
            said = nil
        }
        guard let said else { return window.filter(batch) }
        throw ImplausibleClockError(clock: said, records: times.count, first: first, last: last, window: window)
    }

    /// Places a wall clock's records with the host's clock at download (see ``WallClock``).
    static func placeWallClock(
        _ download: GlucoseDownload, clock: DeviceClock, hostNow: Date, deviceNow: Int64, timeZone: TimeZone
    ) -> (report: ClockReport, instant: (_ deviceSeconds: Int64, _ recordKey: String) -> Date, notes: [String]) {
        let epoch = Int64(clock.epoch.timeIntervalSince1970)
        let deviceWall = epoch + deviceNow
        let error = WallClock.error(deviceWall: deviceWall, host: hostNow, zone: timeZone, resolution: clock.resolution)
        var notes: [String] = []
        let errorText =
            error == 0
            ? "the device clock agrees with the host's in \(timeZone.identifier) (to its resolution of \(clock.resolution) s)"
            : "the device clock is \(WallClock.signed(error)) off local time in \(timeZone.identifier) (device − host)"
        let method: WallClockPlacement
        let instant: (_ deviceSeconds: Int64, _ recordKey: String) -> Date
        if let changes = download.clockChanges {
            method = .changeLog
            // Device wall − UTC now, then before each change walked back.
            let offsetNow = Int64(timeZone.secondsFromGMT(for: hostNow)) + error
            let segments = WallClock.segments(of: download.glucose, changes: changes)
            var offsets = [offsetNow]
            for change in changes.reversed() { offsets.insert(offsets[0] - change.delta, at: 0) }
            instant = { seconds, recordKey in
                let offset = offsets[segments[recordKey] ?? changes.count]
                return Date(timeIntervalSince1970: TimeInterval(epoch + seconds - offset))
            }
            notes.append(
                "time: the device's log of clock changes was walked back from its offset measured at download, \(WallClock.utcOffset(offsetNow)); \(errorText)"
            )
            let counts = Dictionary(grouping: download.glucose, by: { segments[$0.recordKey] ?? changes.count }).mapValues(\.count)
            for (number, change) in changes.enumerated() {
                notes.append(
                    "applied the logged clock change \(change.stream):\(change.index) from \(CivilDate.wallClock(epoch + change.from)) to \(CivilDate.wallClock(epoch + change.to)) (\(WallClock.signed(change.delta))): \(counts[number] ?? 0) record\(counts[number] == 1 ? "" : "s") logged before it (since the change before) read at \(WallClock.utcOffset(offsets[number]))"
                )
            }
            if changes.isEmpty { notes.append("the device logged no clock change: its offset from UTC was constant over the records") }
        } else {
            method = .correctedLocalTime
            instant = { seconds, _ in WallClock.instant(wall: epoch + seconds - error, in: timeZone) }
            notes.append(
                "time: the device keeps no log of clock changes; its wall times were read in \(timeZone.identifier) less the clock error measured at download; \(errorText)"
            )
        }
        var report = ClockReport(hostTime: hostNow, deviceTime: WallClock.instant(wall: deviceWall, in: timeZone), method: .hostAnchored)
        report.wallClock = method
        report.offsetSeconds = TimeInterval(-error)
        if abs(TimeInterval(error)) > clockWarningThreshold {
            notes.append(
                "the device clock is \(describe(TimeInterval(error))) \(error < 0 ? "behind" : "ahead of") the host clock; readings were corrected by the difference"
            )
        }
        return (report, instant, notes)
    }

    /// Notes for a change log that could not be applied (no host clock to measure against).
    static func unappliedChangeNotes(_ changes: [DeviceClockChange]?, epoch: Int64) -> [String] {
        (changes ?? []).map { change in
            "the device's clock was changed from \(CivilDate.wallClock(epoch + change.from)) to \(CivilDate.wallClock(epoch + change.to)) (\(change.stream):\(change.index)); without the host's clock the change could not be applied"
        }
    }

    /// A note for every change of the zone's UTC offset within the readings' span, read without
    /// a change log.
    static func zoneChangeNotes(_ times: [Date], timeZone: TimeZone) -> [String] {
        guard let first = times.min(), let last = times.max() else { return [] }
        return WallClock.zoneChanges(in: timeZone, from: first, to: last).map { date in
            "the records span the \(date) change of \(timeZone.identifier)'s UTC offset and the device keeps no log of clock changes: they were read as local time on each side of the \(date) change"
        }
    }

    /// The instant a device clock value stands for when nothing better is known.
    static func deviceInstant(_ seconds: TimeInterval, _ basis: DeviceClock.Basis, _ zone: TimeZone) -> Date {
        guard basis == .localWallClock, seconds.isFinite, abs(seconds) < 4e11 else { return Date(timeIntervalSince1970: seconds) }
        return WallClock.instant(wall: Int64(seconds.rounded(.down)), in: zone)
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

extension GlucoseReading {
    /// `record` as the store takes it, at `time`: its value in mg/dL, what the device said of it,
    /// and its display time as seconds since 1970 read as a wall clock (`epoch` is the device
    /// clock's, in seconds since 1970), left as a number until it is written.
    init(_ record: DeviceGlucoseRecord, at time: Date, epoch: Int64) {
        self.init(
            time: time, mgdl: record.unit.milligramsPerDeciliter(record.value), unit: record.unit, kind: record.kind,
            flag: record.flag, trend: record.trend, noise: record.noise, recordKey: record.recordKey,
            deviceTime: record.deviceSeconds,
            displayClock: record.displaySeconds.map { DisplayTime(wallClock: epoch + $0) } ?? DisplayTime(nil),
            note: record.note)
    }
}
