import Importer
import Logging
import Store
import TransportLibUSB

/// What the daemon says of one import that succeeded, whichever kind it was (a USB reader or
/// capture, a Bluetooth sensor or btsnoop capture): the lines of a spool report and the metadata
/// of its log line.
public struct FinishedImport: Sendable {
    /// The device, as `family serial (model)`; a Bluetooth import names each source it stored under.
    public var device: String
    /// What was read and stored, one line per source: `23 records read: 0 new, 23 already stored`.
    public var counts: [String]
    /// The source, serial and counts, for the import's single log line.
    public var logMetadata: Logger.Metadata

    public init(_ outcome: ImportOutcome) {
        let summary = outcome.summary
        device = Self.name(outcome.source.family, outcome.source.serial, outcome.source.model)
        counts = ["\(summary.recordsRead) records read: \(summary)"]
        logMetadata = [
            "source": "\(outcome.source.family)", "serial": "\(outcome.source.serial)", "read": "\(summary.recordsRead)",
            "added": "\(summary.added)", "alreadyStored": "\(summary.alreadyStored)",
        ]
    }

    public init(_ outcome: BLEImportOutcome) {
        let identity = outcome.identity
        var sources: [String] = []
        counts = []
        if let activity = outcome.activity {
            sources.append(activity.source.family)
            counts.append("\(activity.summary.samplesRead) \(activity.source.family) samples read: \(activity.summary)")
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
        let families = sources.isEmpty ? "bluetooth" : sources.joined(separator: ",")
        device = Self.name(families, identity.serialOrAddress, model)
        logMetadata = [
            "source": "\(families)", "serial": "\(identity.serialOrAddress)",
            "address": "\(identity.peer.address)",
            "activityMinutesAdded": "\(outcome.activity?.summary.minutesAdded ?? 0)",
            "activityMinutesAlreadyStored": "\(outcome.activity?.summary.minutesAlreadyStored ?? 0)",
            "readingsAdded": "\(outcome.glucose.reduce(0) { $0 + $1.summary.added })",
            "readingsAlreadyStored": "\(outcome.glucose.reduce(0) { $0 + $1.summary.alreadyStored })",
        ]
    }

    /// Every device of a Bluetooth capture holding several: one section of counts per device.
    public init(_ outcomes: [BLEImportOutcome]) {
        self.init(combining: outcomes.map(FinishedImport.init))
    }

    /// Every device of a USB capture holding several.
    public init(_ outcomes: [ImportOutcome]) {
        self.init(combining: outcomes.map(FinishedImport.init))
    }

    private init(combining each: [FinishedImport]) {
        guard each.count != 1 else {
            self = each[0]
            return
        }
        device = each.isEmpty ? "bluetooth (no device)" : each.map(\.device).joined(separator: "; ")
        counts = each.isEmpty
            ? ["nothing stored: the capture held no connection glucobridge decodes"]
            : each.flatMap { finished in finished.counts.map { "\(finished.device): \($0)" } }
        logMetadata = ["devices": "\(each.count)", "source": "\(device)"]
        for key in ["activityMinutesAdded", "activityMinutesAlreadyStored", "readingsAdded", "readingsAlreadyStored", "added", "alreadyStored"] {
            logMetadata[key] = "\(each.reduce(0) { $0 + (Int($1.logMetadata[key].map { "\($0)" } ?? "") ?? 0) })"
        }
    }

    private static func name(_ family: String, _ serial: String, _ model: String?) -> String {
        "\(family) \(serial)\(model.map { " (\($0))" } ?? "")"
    }
}

/// The store failure behind an import error, if that is what it was.
func storeFailure(of error: any Error) -> StoreError? {
    switch error {
    case ImportError.store(let storeError): storeError
    default: nil
    }
}

extension USBHotplugEvent {
    /// The reader the event is about, for log lines.
    var logMetadata: Logger.Metadata {
        ["device": "\(idString)", "bus": "\(location.bus)", "address": "\(location.address)"]
    }
}
