import CaptureBluetooth
import Drivers
import Foundation
import Ingest
import Model
import Store

/// The report of one import, for a person: what the command line prints, what the daemon writes
/// beside a spool file in `done/`. One formatter for USB and Bluetooth imports.
public struct ImportReport: Sendable {
    /// The report's lines.
    public let text: String

    /// The report of a USB import (a reader, or a USB capture).
    public init(_ outcome: ImportOutcome, store: SharedStore) {
        let summary = outcome.summary
        var lines: [String] = []
        if let format = outcome.captureFormat, let mode = outcome.replayMode {
            lines.append("replayed \(outcome.origin ?? "capture") (\(format)) by \(mode)")
        } else {
            lines.append("imported from \(outcome.origin ?? "the device")")
        }
        lines.append("device: \(Self.device(outcome.source))")
        lines.append(Self.counts(
            read: summary.recordsRead, added: summary.added, alreadyStored: summary.alreadyStored, skipped: summary.skipped,
            events: outcome.events))
        if let first = summary.firstReading, let last = summary.lastReading {
            lines.append("readings: \(Self.span(first, last, store: store))")
        }
        if let firstDay = summary.days.first, let lastDay = summary.days.last {
            let span = firstDay == lastDay ? "\(firstDay)" : "\(firstDay) to \(lastDay)"
            lines.append("days: \(span) (\(summary.days.count) day\(summary.days.count == 1 ? "" : "s") in \(store.timeZone.identifier))")
        }
        lines.append(Self.clock(outcome.clock, device: "device"))
        lines += outcome.notes.map { "note: \($0)" }
        lines.append("store: \(store.path)")
        text = lines.joined(separator: "\n")
    }

    /// The report of a Bluetooth import (a sensor, or a btsnoop capture).
    public init(_ outcome: BLEImportOutcome, store: SharedStore) {
        var lines: [String] = []
        if let mode = outcome.replayMode {
            lines.append("replayed \(outcome.origin ?? "capture") (btsnoop) by \(mode)")
        } else {
            lines.append("imported from \(outcome.origin ?? "the device")")
        }
        let identity = outcome.identity
        var device = "device: \(identity.peer)"
        if let serial = identity.serial { device += "; serial \(serial)" }
        let named = [identity.manufacturer, identity.model].compactMap { $0 }.joined(separator: " ")
        if !named.isEmpty { device += "; \(named)" }
        lines.append(device)
        lines.append("services: " + outcome.session.database.services.map { Self.serviceName($0.uuid) }.joined(separator: ", "))

        if let activity = outcome.activity {
            let summary = activity.summary
            lines.append(
                "activity (\(activity.source)): \(summary.samplesRead) samples; "
                    + Self.count(summary.minutesAdded + summary.minutesAlreadyStored, "minute") + ": \(summary.minutesAdded) new, "
                    + "\(summary.minutesAlreadyStored) already stored; exercise sessions: \(summary.sessionsAdded) new, "
                    + "\(summary.sessionsAlreadyStored) already stored")
            lines += activity.sessions.map { "exercise: \(Self.session($0, store: store))" }
            lines += Self.days(summary.days, store: store).map { "exercise days: \($0)" }
            if !activity.events.isEmpty { lines.append("samples left out: " + Self.counts(activity.events)) }
            lines += activity.notes.map { "note: \($0)" }
        }
        for glucose in outcome.glucose {
            let summary = glucose.summary
            let kind = glucose.service == .continuousGlucoseMonitoring ? "cgm" : "meter"
            let crc = glucose.events.first { $0.name == "crc-mismatch" }?.count ?? 0
            let special = glucose.events.filter { $0.name.hasPrefix("special-value-") }
            var line = "\(kind) (\(glucose.source)): \(summary.recordsRead) records read: \(summary.added) readings new, "
                + "\(summary.alreadyStored) already stored; CRC failures: \(crc); special values: "
                + (special.isEmpty ? "none" : Self.counts(special.map { ImportEvent(name: String($0.name.dropFirst(14)), count: $0.count) }))
            let others = glucose.events.filter { $0.name != "crc-mismatch" && !$0.name.hasPrefix("special-value-") }
            if !others.isEmpty { line += "; left out: " + Self.counts(others) }
            lines.append(line)
            if let first = summary.firstReading, let last = summary.lastReading {
                lines.append("readings: \(Self.span(first, last, store: store))")
            }
            lines += Self.days(summary.days, store: store).map { "days: \($0)" }
            lines.append(Self.clock(glucose.clock, device: "sensor"))
            lines += glucose.notes.map { "note: \($0)" }
        }
        if let exercise = outcome.meterExercise {
            let summary = exercise.summary
            lines.append("meter exercise (\(exercise.source)): \(summary.sessionsAdded) new, \(summary.sessionsAlreadyStored) already stored")
            lines += exercise.sessions.map { "exercise: \(Self.session($0, store: store))" }
        }
        if !outcome.unclaimed.isEmpty {
            lines.append("notifications no driver reads: " + outcome.unclaimed.map { handle, uuid, count in
                "\(count) on " + (uuid.map { "\($0) (handle \(Self.hex(handle)))" } ?? "handle \(Self.hex(handle))")
            }.joined(separator: ", "))
        }
        lines += outcome.problems.map { "problem: \($0)" }
        lines.append("session ended: \(outcome.session.ending)")
        lines += outcome.notes.map { "note: \($0)" }
        if outcome.activity == nil, outcome.glucose.isEmpty, outcome.meterExercise == nil {
            lines.append("nothing stored: the session held no readings or activity glucobridge decodes")
        }
        lines.append("store: \(store.path)")
        text = lines.joined(separator: "\n")
    }

    /// One stored import, as `status` lists the last of every source, its time in `zone` like
    /// every other output: `dexcom SM44792675 (G4Receiver): 2024-05-01 08:30:15 live from usb …:
    /// 23 records read: 0 new, 23 already stored`.
    public static func lastImport(_ run: ImportRun, zone: TimeZone) -> String {
        let origin = run.origin.map { " from \($0)" } ?? ""
        return "\(device(run.source)): \(LocalTimeText.text(run.finishedAt, zone: zone, seconds: true)) \(run.mode)\(origin): "
            + counts(read: run.recordsRead, added: run.added, alreadyStored: run.alreadyStored, skipped: run.skipped, events: run.events)
    }

    /// `dexcom SM44792675 (G4Receiver)`.
    static func device(_ source: DeviceSource) -> String {
        "\(source.family) \(source.serial)" + (source.model.map { " (\($0))" } ?? "")
    }

    /// `26 records read: 23 new, 0 already stored, 3 not readings (display-only 3)`.
    static func counts(read: Int, added: Int, alreadyStored: Int, skipped: Int, events: [ImportEvent]) -> String {
        var line = "\(read) records read: \(added) new, \(alreadyStored) already stored"
        if skipped > 0 {
            line += ", \(skipped) not readings" + (events.isEmpty ? "" : " (\(Self.counts(events)))")
        }
        return line
    }

    /// One report, or a section per device (`device 1 of 2:`) when a capture held several.
    public static func sections(_ reports: [ImportReport]) -> String {
        guard reports.count != 1 else { return reports.first?.text ?? "" }
        return reports.enumerated().map { "device \($0.offset + 1) of \(reports.count):\n\($0.element.text)" }.joined(separator: "\n\n")
    }

    /// `time: host-anchored, device clock 14400 s behind the host's`; for a wall clock, how it was
    /// placed and its error (device − host, at the clock's resolution).
    static func clock(_ clock: ClockReport, device: String) -> String {
        var line = "time: \(clock.method.rawValue)"
        if let wallClock = clock.wallClock {
            line += " wall clock (\(wallClock.rawValue))"
            if let offset = clock.offsetSeconds {
                let error = Int64(-offset.rounded())
                line += error == 0 ? ", clock error 0" : ", clock error \(WallClock.signed(error)) (\(device) − host)"
            }
        } else if let offset = clock.offsetSeconds {
            line += ", \(device) clock \(Int(abs(offset).rounded())) s \(offset >= 0 ? "behind" : "ahead of") the host's"
        }
        return line
    }

    /// `2015-07-17 20:18:17 to 2015-07-17 22:08:16 (America/New_York)`: in the store's zone, as
    /// every output shows an instant.
    static func span(_ first: Date, _ last: Date, store: SharedStore) -> String {
        "\(LocalTimeText.text(first, zone: store.timeZone, seconds: true)) to "
            + LocalTimeText.named(last, zone: store.timeZone, seconds: true)
    }

    /// `2024-05-02 08:00 (Europe/Berlin) Activity 40 min moderate`: its start in the store's zone.
    static func session(_ session: ExerciseSession, store: SharedStore) -> String {
        "\(LocalTimeText.named(session.start, zone: store.timeZone)) \(session.kind.rawValue) \(session.minutes) min \(session.intensity.rawValue)"
    }

    /// `1 minute`, `51 minutes`.
    static func count(_ value: Int, _ noun: String) -> String {
        "\(value) \(noun)\(value == 1 ? "" : "s")"
    }

    static func days(_ days: [DayDate], store: SharedStore) -> [String] {
        guard let first = days.first, let last = days.last else { return [] }
        let span = first == last ? "\(first)" : "\(first) to \(last)"
        return ["\(span) (\(days.count) day\(days.count == 1 ? "" : "s") in \(store.timeZone.identifier))"]
    }

    static func counts(_ events: [ImportEvent]) -> String {
        events.map { "\($0.name) \($0.count)" }.joined(separator: ", ")
    }

    static func hex(_ handle: UInt16) -> String {
        let digits = String(handle, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// `Heart Rate (0x180D)`, `Generic Access (0x1800)`, or the UUID.
    static func serviceName(_ uuid: BluetoothUUID) -> String {
        guard let short = uuid.short else { return uuid.description }
        if let known = BLEService(rawValue: short) { return known.description }
        let generic: [UInt16: String] = [0x1800: "Generic Access", 0x1801: "Generic Attribute", 0x180A: "Device Information"]
        return generic[short].map { "\($0) (\(uuid))" } ?? uuid.description
    }
}
