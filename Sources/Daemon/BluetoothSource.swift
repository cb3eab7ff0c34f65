import Drivers
import Foundation
import Importer
import LiveImport
import Transport

/// A Bluetooth LE band or sensor the daemon reads on a schedule (`glucobridge daemon --ble`):
/// each read connects, imports what the sensor gives — glucose records newer than the last one
/// stored, activity for at most `listenMinutes` — and disconnects. While it listens, other
/// imports wait in the queue, so the listen is kept short.
package struct BluetoothSource: PolledSource {
    package var peer: BLEPeer
    /// The adapter to connect with (`hci0`); nil: the kernel's choice.
    package var adapter: String?
    package var interval: Duration
    package var listenMinutes: Int

    package init(peer: BLEPeer, adapter: String? = nil, interval: Duration, listenMinutes: Int) {
        self.peer = peer
        self.adapter = adapter
        self.interval = interval
        self.listenMinutes = listenMinutes
    }

    package var name: String { "bluetooth \(peer.address)" }

    package func importSource() -> ImportSource {
        .bluetooth(BlueZPeer(peer, adapter: adapter))
    }

    package var limits: BLESessionLimits { .live(minutes: listenMinutes) }
}
