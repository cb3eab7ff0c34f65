import Foundation
import Importer
import Transport
import TransportBlueZ

/// A Bluetooth LE device reached through this machine's BlueZ adapter, connected when the import
/// starts: `importer.run(.bluetooth(BlueZPeer(peer)))`. On a machine without Bluetooth the
/// import fails with one line saying so.
package struct BlueZPeer: BluetoothConnecting {
    package var peer: BLEPeer
    /// The adapter to connect with (`hci0`); nil: the kernel's choice.
    package var adapter: String?
    package var security: BLESecurity

    package init(_ peer: BLEPeer, adapter: String? = nil, security: BLESecurity = .low) {
        self.peer = peer
        self.adapter = adapter
        self.security = security
    }

    package func connect() throws(ImportError) -> ConnectedPeer {
        do {
            return ConnectedPeer(
                try L2CAPATTBearer.connect(to: peer, adapter: adapter, security: security), origin: "bluetooth \(peer.address)")
        } catch {
            throw .session(.link(error))
        }
    }
}
