import Foundation
import Model
import Transport

/// What drivers may do on the link.
package enum BLESessionMode: Sendable, Equatable {
    /// glucobridge holds the conversation: drivers read, subscribe and download stored records.
    case conversation
    /// Another program held the conversation (a capture replayed passively): drivers read only
    /// what the capture answers, write nothing, and take the notifications and indications the
    /// capture holds.
    case listenOnly
}

/// A driver for one standard GATT service. It talks only to a `GATTClient` (through a
/// `BLELink`), so the same code reads a device and replays a btsnoop capture.
///
/// A device may offer several services (a band with heart rate and a CGM): `BLESession` starts one
/// driver per service it knows, on one connection, and hands each notification to the driver
/// that owns its handle. That is why a driver is an object with a life cycle rather than one
/// download call as on USB: start (reads, subscriptions), download (stored records), then the
/// notifications of the session, then its report.
///
/// Its static half is the family's coordinator, matched by its GATT service.
package protocol BLEDeviceDriver: AnyObject, DeviceCoordinator {
    /// The service it reads.
    static var service: BLEService { get }
    /// A driver for `service` as discovery found it.
    init(service: GATTService)
    /// The value handles whose notifications and indications it takes.
    var handles: Set<UInt16> { get }
    /// Reads what the service offers and, in conversation mode, subscribes.
    func start(on link: BLELink) throws(BLEDriverError)
    /// Downloads stored records (conversation mode only; most services have none).
    func download(on link: BLELink) throws(BLEDriverError)
    /// Takes one notification or indication on one of its handles.
    func take(_ notification: GATTNotification)
    /// Everything it read, its records kept under `identity`'s source for its family.
    func report(identity: BLEDeviceIdentity) -> DriverDownload
}

extension BLEDeviceDriver {
    /// Its GATT service.
    package static var matches: [DeviceMatch] { [.gattService(service)] }

    package func download(on link: BLELink) throws(BLEDriverError) {}
}

/// Counts values left out, by reason, in first-seen order.
package struct EventCounter: Sendable {
    private var names: [String] = []
    private var counts: [String: Int] = [:]

    package init() {}

    package mutating func count(_ name: String, _ amount: Int = 1) {
        if counts[name] == nil { names.append(name) }
        counts[name, default: 0] += amount
    }

    package var events: [ImportEvent] { names.map { ImportEvent(name: $0, count: counts[$0]!) } }
}

extension GATTService {
    /// The characteristic `known`, when the service has it.
    package func characteristic(_ known: BLECharacteristic) -> GATTCharacteristic? {
        characteristic(known.uuid)
    }
}
