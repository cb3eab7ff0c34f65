import CaptureBluetooth
import Drivers
import Foundation
import Ingest
import Logging
import Model
import Store
import Transport

/// The report of one import, for a person and for the log: what the command line prints, what
/// the daemon writes beside a spool file in `done/`, and the daemon's summary and log line. One
/// formatter for every bus.
package struct ImportReport: Sendable {
    /// The report's lines; for several devices, a section each (`device 1 of 2:`).
    package let text: String
    /// The device, as `family serial (model)`; a Bluetooth import names each source it stored
    /// under; several devices are joined with `; `.
    package let device: String
    /// What was read and stored, one line per source: `23 records read: 0 new, 23 already stored`.
    package let counts: [String]
    /// The source, serial and counts, for the import's single log line.
    package let logMetadata: Logger.Metadata

    /// The report of an import: one section per device.
    package init(_ result: ImportResult, store: SharedStore) {
        let each = result.devices.map { Self.text($0, store: store) }
        text =
            each.count == 1
            ? each[0]
            : each.enumerated().map { "device \($0.offset + 1) of \(each.count):\n\($0.element)" }
                .joined(separator: "\n\n")
        let summaries = result.devices.map(Summary.init)
        guard summaries.count != 1 else {
            (device, counts, logMetadata) = (summaries[0].device, summaries[0].counts, summaries[0].logMetadata)
            return
        }
        device = summaries.isEmpty ? "bluetooth (no device)" : summaries.map(\.device).joined(separator: "; ")
        counts =
            summaries.isEmpty
            ? ["nothing stored: the capture held no connection glucobridge decodes"]
            : summaries.flatMap { summary in summary.counts.map { "\(summary.device): \($0)" } }
        var metadata: Logger.Metadata = ["devices": "\(summaries.count)", "source": "\(device)"]
        for key in ["activityMinutesAdded", "activityMinutesAlreadyStored", "readingsAdded", "readingsAlreadyStored", "added", "alreadyStored"] {
            metadata[key] = "\(summaries.reduce(0) { $0 + (Int($1.logMetadata[key].map { "\($0)" } ?? "") ?? 0) })"
        }
        logMetadata = metadata
    }

    private static func text(_ device: DeviceImport, store: SharedStore) -> String {
        if let fit = device.fit { return fitText(device, fit, store: store) }
        return device.session == nil ? usbText(device, store: store) : bluetoothText(device, store: store)
    }

    /// A FIT file's report.
    /// "61 minutes: 60 new, 1 merged with a stored part of it, 0 already stored" (the merged
    /// count only when there is one).
    private static func minutes(_ summary: ActivityImportSummary) -> String {
        count(summary.minutesAdded + summary.minutesMerged + summary.minutesAlreadyStored, "minute") + ": \(summary.minutesAdded) new, "
            + (summary.minutesMerged > 0 ? "\(summary.minutesMerged) merged with a stored part of it, " : "")
            + "\(summary.minutesAlreadyStored) already stored"
    }

    private static func fitText(_ outcome: DeviceImport, _ fit: FITFileImport, store: SharedStore) -> String {
        var lines = [
            "read \(outcome.origin ?? "a FIT file") (FIT \(fit.fileType) file, \(count(fit.messagesRead, "message"))"
                + (fit.parts > 1 ? " in \(fit.parts) chained files" : "") + ")"
        ]
        if let activity = outcome.activity {
            let summary = activity.summary
            lines.append("device: \(Self.device(activity.source))")
            lines.append(
                "activity: \(summary.samplesRead) samples; " + Self.minutes(summary) + "; exercise sessions: "
                    + "\(summary.sessionsAdded) new, \(summary.sessionsAlreadyStored) already stored")
            lines += activity.sessions.map { "exercise: \(Self.loggedSession($0, store: store))" }
            lines += Self.days(summary.days, store: store).map { "exercise days: \($0)" }
            if !activity.events.isEmpty { lines.append("left out: " + Self.counts(activity.events)) }
            lines += activity.notes.map { "note: \($0)" }
        }
        lines += outcome.notes.map { "note: \($0)" }
        lines.append("store: \(store.path)")
        return lines.joined(separator: "\n")
    }

    /// A session the device logged itself: with its distance, energy and measured length.
    private static func loggedSession(_ session: ExerciseSession, store: SharedStore) -> String {
        var line = Self.session(session, store: store)
        if let distance = session.distance { line += ", \(Self.decimal(distance)) m" }
        if let energy = session.energy { line += ", \(Self.decimal(energy)) kJ" }
        return line + " (\(Self.decimal(session.duration)) s)"
    }

    /// Up to two decimals, without trailing zeros: `5.73`, `9008.22`, `2160`.
    private static func decimal(_ value: Double) -> String {
        let hundredths = (value * 100).rounded()
        guard hundredths.isFinite, abs(hundredths) < 1e15 else { return "\(value)" }
        let whole = Int64(hundredths) / 100
        let fraction = abs(Int64(hundredths) % 100)
        if fraction == 0 { return "\(whole)" }
        return "\(whole)." + (fraction % 10 == 0 ? "\(fraction / 10)" : fraction < 10 ? "0\(fraction)" : "\(fraction)")
    }

    /// A USB device's report (a reader, or a USB capture).
    private static func usbText(_ device: DeviceImport, store: SharedStore) -> String {
        guard let outcome = device.glucose.first else { return "nothing read" }
        let summary = outcome.summary
        var lines: [String] = []
        if let format = outcome.captureFormat, let mode = outcome.replayMode {
            lines.append("replayed \(outcome.origin ?? "capture") (\(format)) by \(mode)")
        } else {
            lines.append("imported from \(outcome.origin ?? "the device")")
        }
        lines.append("device: \(Self.device(outcome.source))")
        lines.append(
            Self.counts(
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
        return lines.joined(separator: "\n")
    }

    /// A Bluetooth device's report (a sensor, or a btsnoop capture).
    private static func bluetoothText(_ outcome: DeviceImport, store: SharedStore) -> String {
        guard let identity = outcome.identity, let session = outcome.session else { return "" }
        var lines: [String] = []
        if let mode = outcome.replayMode {
            lines.append("replayed \(outcome.origin ?? "capture") (btsnoop) by \(mode)")
        } else {
            lines.append("imported from \(outcome.origin ?? "the device")")
        }
        var device = "device: \(identity.peer)"
        if let serial = identity.serial { device += "; serial \(serial)" }
        let named = [identity.manufacturer, identity.model].compactMap { $0 }.joined(separator: " ")
        if !named.isEmpty { device += "; \(named)" }
        lines.append(device)
        lines.append("services: " + session.database.services.map { Self.serviceName($0.uuid) }.joined(separator: ", "))

        if let activity = outcome.activity {
            let summary = activity.summary
            lines.append(
                "activity (\(activity.source)\(activity.services.isEmpty ? "" : " via " + activity.services.map(\.rawValue).joined(separator: ", "))): "
                    + "\(summary.samplesRead) samples; " + Self.minutes(summary)
                    + "; exercise sessions: \(summary.sessionsAdded) new, \(summary.sessionsAlreadyStored) already stored")
            lines += activity.sessions.map { session in
                session.measuredDuration == nil
                    ? "exercise: \(Self.session(session, store: store))" : "exercise: \(Self.loggedSession(session, store: store))"
            }
            lines += Self.days(summary.days, store: store).map { "exercise days: \($0)" }
            if !activity.events.isEmpty { lines.append("samples left out: " + Self.counts(activity.events)) }
            lines += activity.notes.map { "note: \($0)" }
        }
        for glucose in outcome.glucose {
            let summary = glucose.summary
            let kind = glucose.service == .continuousGlucoseMonitoring ? "cgm" : "meter"
            let crc = glucose.events.first { $0.name == "crc-mismatch" }?.count ?? 0
            let special = glucose.events.filter { $0.name.hasPrefix("special-value-") }
            var line =
                "\(kind) (\(glucose.source)): \(summary.recordsRead) records read: \(summary.added) readings new, "
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
            lines.append(
                "notifications no driver reads: "
                    + outcome.unclaimed.map { handle, uuid, count in
                        "\(count) on " + (uuid.map { "\($0) (handle \(Hex.literal(handle)))" } ?? "handle \(Hex.literal(handle))")
                    }.joined(separator: ", "))
        }
        lines += outcome.problems.map { "problem: \($0)" }
        lines.append("session ended: \(session.ending)")
        lines += outcome.notes.map { "note: \($0)" }
        if outcome.activity == nil, outcome.glucose.isEmpty, outcome.meterExercise == nil {
            lines.append("nothing stored: the session held no readings or activity glucobridge decodes")
        }
        lines.append("store: \(store.path)")
        return lines.joined(separator: "\n")
    }

    /// One stored import, as `status` lists the last of every source, its time in `zone` like
    /// every other output: `dexcom SM44792675 (G4Receiver): 2024-05-01 08:30:15 live from usb …:
    /// 23 records read: 0 new, 23 already stored`.
    package static func lastImport(_ run: ImportRun, zone: TimeZone) -> String {
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

    /// `Heart Rate (0x180D)`, `Generic Access (0x1800)`, or the UUID.
    static func serviceName(_ uuid: BluetoothUUID) -> String {
        if let known = BLEService.known(uuid) { return known.description }
        guard let short = uuid.short else { return uuid.description }
        let generic: [UInt16: String] = [0x1800: "Generic Access", 0x1801: "Generic Attribute", 0x180A: "Device Information"]
        return generic[short].map { "\($0) (\(uuid))" } ?? uuid.description
    }
}

/// One device's summary for the daemon: its name, a counts line per source, its log metadata.
private struct Summary {
    var device: String
    var counts: [String]
    var logMetadata: Logger.Metadata

    init(_ outcome: DeviceImport) {
        if outcome.fit != nil, let activity = outcome.activity {
            device = ImportReport.device(activity.source)
            counts = ["\(activity.summary.samplesRead) samples read: \(activity.summary)"]
            logMetadata = [
                "source": "\(activity.source.family)", "serial": "\(activity.source.serial)",
                "activityMinutesAdded": "\(activity.summary.minutesAdded)",
                "activityMinutesAlreadyStored": "\(activity.summary.minutesAlreadyStored)",
            ]
            return
        }
        guard let identity = outcome.identity else {
            guard let glucose = outcome.glucose.first else {
                device = outcome.origin ?? "a device"
                counts = ["nothing read"]
                logMetadata = [:]
                return
            }
            let summary = glucose.summary
            device = ImportReport.device(glucose.source)
            counts = ["\(summary.recordsRead) records read: \(summary)"]
            logMetadata = [
                "source": "\(glucose.source.family)", "serial": "\(glucose.source.serial)", "read": "\(summary.recordsRead)",
                "added": "\(summary.added)", "alreadyStored": "\(summary.alreadyStored)",
            ]
            return
        }
        var sources: [DeviceFamily] = []
        counts = []
        if let activity = outcome.activity {
            // A device's activity source is the bus's (`ble`): name the services read instead.
            let services = activity.services.isEmpty ? [activity.source.family] : activity.services
            sources += services
            counts.append("\(activity.summary.samplesRead) \(services.map(\.rawValue).joined(separator: ",")) samples read: \(activity.summary)")
        }
        for glucose in outcome.glucose {
            sources.append(glucose.source.family)
            counts.append("\(glucose.summary.recordsRead) \(glucose.source.family) records read: \(glucose.summary)")
        }
        if let exercise = outcome.meterExercise {
            counts.append("meter exercise: \(exercise.summary.sessionsAdded) new, \(exercise.summary.sessionsAlreadyStored) already stored")
        }
        if counts.isEmpty { counts = ["nothing stored: the session held no readings or activity glucobridge decodes"] }
        let model = outcome.activity?.source.model ?? outcome.glucose.first?.source.model ?? identity.peer.name
        let families = sources.isEmpty ? "bluetooth" : sources.map(\.rawValue).joined(separator: ",")
        device = "\(families) \(identity.serialOrAddress)" + (model.map { " (\($0))" } ?? "")
        let readingsAdded = outcome.glucose.reduce(0) { $0 + $1.summary.added }
        let readingsAlreadyStored = outcome.glucose.reduce(0) { $0 + $1.summary.alreadyStored }
        logMetadata = [
            "source": "\(families)", "serial": "\(identity.serialOrAddress)",
            "address": "\(identity.peer.address)",
            "activityMinutesAdded": "\(outcome.activity?.summary.minutesAdded ?? 0)",
            "activityMinutesAlreadyStored": "\(outcome.activity?.summary.minutesAlreadyStored ?? 0)",
            "readingsAdded": "\(readingsAdded)",
            "readingsAlreadyStored": "\(readingsAlreadyStored)",
        ]
    }
}
