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
package protocol BLEDeviceDriver: AnyObject {
    /// The family name kept with every record it yields (e.g. `ble-hrs`).
    static var family: String { get }
    /// The service it reads.
    static var service: BLEService { get }
    /// What it stores, for README's table of Bluetooth services.
    static var summary: String { get }
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
    func report(identity: BLEDeviceIdentity) -> BLEDriverReport
}

extension BLEDeviceDriver {
    package func download(on link: BLELink) throws(BLEDriverError) {}
}

/// What one driver read in a session, device-neutral.
package struct BLEDriverReport: Sendable {
    package var family: String
    package var service: BLEService
    /// Activity samples timed by the host clock at each notification.
    package var samples: [ActivitySample]
    /// Glucose records (CGM or meter) with the clock they are timed by.
    package var glucose: DeviceDownload?
    /// Exercise the device logged itself (a meter's measurement context), timed by the clock of
    /// `glucose`.
    package var exercise: [DeviceExercise]
    /// Samples or values read but not used, counted by reason (e.g. `malformed-heart-rate`); a
    /// glucose driver counts its records left out in `glucose.events` instead.
    package var events: [ImportEvent]
    /// Named problems: values that did not decode, refused or unanswered record requests.
    package var problems: [BLEDriverError]
    /// Plain remarks for the import report (where the band is worn, RACP counts, …).
    package var notes: [String]
    /// How far the device's stored activity history was read (stream → last record index), kept
    /// with the activity in the same transaction so that the next session reads only newer.
    package var cursors: [String: Int64]

    package init(
        family: String, service: BLEService, samples: [ActivitySample] = [], glucose: DeviceDownload? = nil,
        exercise: [DeviceExercise] = [], events: [ImportEvent] = [], problems: [BLEDriverError] = [], notes: [String] = [],
        cursors: [String: Int64] = [:]
    ) {
        self.family = family
        self.service = service
        self.samples = samples
        self.glucose = glucose
        self.exercise = exercise
        self.events = events
        self.problems = problems
        self.notes = notes
        self.cursors = cursors
    }
}

/// Counts values left out, by reason, in first-seen order.
struct EventCounter {
    private var names: [String] = []
    private var counts: [String: Int] = [:]

    mutating func count(_ name: String, _ amount: Int = 1) {
        if counts[name] == nil { names.append(name) }
        counts[name, default: 0] += amount
    }

    var events: [ImportEvent] { names.map { ImportEvent(name: $0, count: counts[$0]!) } }
}

extension DriverRegistry {
    /// The Bluetooth LE drivers, in the order a session starts them.
    package static var ble: [any BLEDeviceDriver.Type] {
        [
            HeartRateDriver.self, RunningSpeedCadenceDriver.self, CyclingSpeedCadenceDriver.self, FitnessMachineDriver.self,
            HuamiBandDriver.self, ContinuousGlucoseDriver.self, GlucoseMeterDriver.self,
        ]
    }

    /// The drivers for the services in `database`, in registry order.
    package static func bleDrivers(for database: GATTDatabase) -> [any BLEDeviceDriver] {
        ble.compactMap { driver in
            database.service(driver.service.uuid).map { driver.init(service: $0) }
        }
    }
}

extension BLEService {
    /// The service's 16-bit UUID.
    package var uuid: BluetoothUUID { BluetoothUUID(rawValue) }
}

extension BLECharacteristic {
    /// The characteristic's 16-bit UUID.
    package var uuid: BluetoothUUID { BluetoothUUID(rawValue) }
}

extension GATTService {
    /// The characteristic `known`, when the service has it.
    package func characteristic(_ known: BLECharacteristic) -> GATTCharacteristic? {
        characteristic(known.uuid)
    }
}
