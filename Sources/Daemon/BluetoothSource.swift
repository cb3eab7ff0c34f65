import Drivers
import Foundation
import Importer
import LiveImport
import Transport

/// A Bluetooth LE band or sensor the daemon reads on a schedule (`glucobridge daemon --ble`):
/// each read connects, imports what the sensor gives — glucose records newer than the last one
/// stored, activity for at most `listenMinutes` — and disconnects. While it listens, other
/// imports wait in the queue, so the listen is kept short.
public struct BluetoothSource: PolledSource {
    public var peer: BLEPeer
    /// The adapter to connect with (`hci0`); nil: the kernel's choice.
    public var adapter: String?
    public var interval: Duration
    public var listenMinutes: Int

    public init(peer: BLEPeer, adapter: String? = nil, interval: Duration, listenMinutes: Int) {
        self.peer = peer
        self.adapter = adapter
        self.interval = interval
        self.listenMinutes = listenMinutes
    }

    public var name: String { "bluetooth \(peer.address)" }

    public func importSource() -> ImportSource {
        .bluetooth(BlueZPeer(peer, adapter: adapter))
    }

    public var limits: BLESessionLimits { .live(minutes: listenMinutes) }
}
