import Importer
import Logging
import Transport

extension ImportOutcome {
    /// What the log line of a finished import says of it: the source, and the records read,
    /// added and already stored.
    var logMetadata: Logger.Metadata {
        [
            "source": "\(source.family)", "serial": "\(source.serial)", "read": "\(summary.recordsRead)",
            "added": "\(summary.added)", "alreadyStored": "\(summary.alreadyStored)",
        ]
    }
}

extension USBHotplugEvent {
    /// The reader the event is about, for log lines.
    var logMetadata: Logger.Metadata {
        ["device": "\(idString)", "bus": "\(location.bus)", "address": "\(location.address)"]
    }
}
