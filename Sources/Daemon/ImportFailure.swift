import Importer
import Logging
import Store
import TransportLibUSB

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
