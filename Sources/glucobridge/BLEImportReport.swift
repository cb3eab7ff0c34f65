import Capture
import Drivers
import Foundation
import Importer
import Model
import Store

/// The summary a Bluetooth import prints on stdout.
struct BLEImportReport {
    var outcome: BLEImportOutcome
    var store: SharedStore

    var text: String {
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
            lines += activity.sessions.map { "exercise: \(Self.session($0))" }
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
                lines.append("readings: \(ImportReport.utc(first)) to \(ImportReport.utc(last))")
            }
            lines += Self.days(summary.days, store: store).map { "days: \($0)" }
            lines.append(ImportReport.clock(glucose.clock, device: "sensor"))
            lines += glucose.notes.map { "note: \($0)" }
        }
        if let exercise = outcome.meterExercise {
            let summary = exercise.summary
            lines.append("meter exercise (\(exercise.source)): \(summary.sessionsAdded) new, \(summary.sessionsAlreadyStored) already stored")
            lines += exercise.sessions.map { "exercise: \(Self.session($0))" }
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
        return lines.joined(separator: "\n")
    }

    /// `2024-05-02T06:00:00Z Activity 40 min moderate`.
    static func session(_ session: ExerciseSession) -> String {
        "\(ImportReport.utc(session.start)) \(session.kind.rawValue) \(session.minutes) min \(session.intensity.rawValue)"
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
