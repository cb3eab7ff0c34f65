import Drivers
import Foundation
import Importer
import Transport
import TransportBlueZ

extension Importer {
    /// Connects to `peer` over Bluetooth LE and imports what its services give, recording the
    /// session to `recordURL` as a btsnoop file when given. On a machine without Bluetooth this
    /// fails with one line saying so.
    public func importBLE(
        peer: BLEPeer, adapter: String? = nil, security: BLESecurity = .low, recordTo recordURL: URL? = nil,
        limits: BLESessionLimits = .live()
    ) throws(ImportError) -> BLEImportOutcome {
        let bearer: L2CAPATTBearer
        do {
            bearer = try L2CAPATTBearer.connect(to: peer, adapter: adapter, security: security)
        } catch {
            throw .session(.link(error))
        }
        logger.info("connected", metadata: ["peer": "\(peer)"])
        return try importBLESession(over: bearer, origin: "bluetooth \(peer.address)", recordTo: recordURL, limits: limits)
    }
}
