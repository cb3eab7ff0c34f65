import Foundation
import Importer
import Transport
import TransportBlueZ

/// A Bluetooth LE device reached through this machine's BlueZ adapter, connected when the import
/// starts: `importer.run(.bluetooth(BlueZPeer(peer)))`. On a machine without Bluetooth the
/// import fails with one line saying so.
public struct BlueZPeer: BluetoothConnecting {
    public var peer: BLEPeer
    /// The adapter to connect with (`hci0`); nil: the kernel's choice.
    public var adapter: String?
    public var security: BLESecurity

    public init(_ peer: BLEPeer, adapter: String? = nil, security: BLESecurity = .low) {
        self.peer = peer
        self.adapter = adapter
        self.security = security
    }

    public func connect() throws(ImportError) -> ConnectedPeer {
        do {
            return ConnectedPeer(
                try L2CAPATTBearer.connect(to: peer, adapter: adapter, security: security), origin: "bluetooth \(peer.address)")
        } catch {
            throw .session(.link(error))
        }
    }
}
