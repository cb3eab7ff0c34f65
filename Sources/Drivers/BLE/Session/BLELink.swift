import Foundation
import Model
import Transport

/// The connection as the drivers of one session share it: the GATT client, the session's mode,
/// the device's identity, and the routing of notifications to the driver that owns their handle.
package final class BLELink {
    package let client: any GATTClient
    package let mode: BLESessionMode
    /// How long a driver waits for the device to answer a control-point request.
    package let answerTimeout: Duration
    package internal(set) var identity: BLEDeviceIdentity
    /// The attribute table discovery found (for a driver whose characteristics span services).
    package internal(set) var database = GATTDatabase(services: [])
    /// The families of every driver of the session, in registry order.
    package internal(set) var families: [DeviceFamily] = []
    /// Notifications and indications on handles no driver owns, counted per handle.
    package private(set) var unclaimed: [UInt16: Int] = [:]
    /// The host times of the earliest and latest value or notification received.
    package private(set) var firstHostTime: Date?
    package private(set) var lastHostTime: Date?

    /// What the store holds and where progress goes.
    package let context: DownloadContext
    private var owners: [UInt16: any BLEDeviceDriver] = [:]
    private(set) var notes: [String] = []

    init(
        client: any GATTClient, mode: BLESessionMode, answerTimeout: Duration, identity: BLEDeviceIdentity,
        context: DownloadContext
    ) {
        self.client = client
        self.mode = mode
        self.answerTimeout = answerTimeout
        self.identity = identity
        self.context = context
    }

    /// Whether drivers may write (subscribe, send control-point requests).
    package var mayWrite: Bool { mode == .conversation }

    func own(_ driver: any BLEDeviceDriver) {
        for handle in driver.handles { owners[handle] = driver }
    }

    /// Routes the notifications of `handle` (a characteristic outside the driver's own service)
    /// to `driver`.
    package func claim(_ handle: UInt16, by driver: any BLEDeviceDriver) {
        owners[handle] = driver
    }

    /// Adds a remark for the import report.
    package func note(_ text: String) {
        notes.append(text)
    }

    /// The highest record index the store holds for `stream` of this device under `family`.
    package func cursor(family: DeviceFamily, stream: RecordStream) -> Int64? {
        context.cursor(identity.source(family: family), stream: stream)
    }

    /// Reads a characteristic glucobridge needs; any failure is the session's.
    package func read(_ characteristic: GATTCharacteristic) throws(BLEDriverError) -> GATTValue {
        do {
            let value = try client.read(characteristic)
            seen(value.hostTime)
            return value
        } catch {
            throw .link(error)
        }
    }

    /// Reads a characteristic the session can do without: nil, with a note naming `name` and
    /// why, when the device refuses it (an ATT error) or, when only listening to a capture, the
    /// capture does not hold the read. A lost link still fails the session.
    package func readOptional(_ characteristic: GATTCharacteristic, name: String) throws(BLEDriverError) -> GATTValue? {
        do {
            let value = try client.read(characteristic)
            seen(value.hostTime)
            return value
        } catch {
            guard isDispensable(error) else { throw .link(error) }
            note("\(name) not read: \(error)")
            return nil
        }
    }

    /// Subscribes to notifications (or indications) of `characteristic` in conversation mode;
    /// does nothing when only listening.
    package func subscribe(_ characteristic: GATTCharacteristic, to subscription: GATTSubscription? = nil) throws(BLEDriverError) {
        guard mayWrite else { return }
        do {
            if let subscription {
                try client.subscribe(characteristic, to: subscription)
            } else {
                try client.subscribe(characteristic)
            }
        } catch {
            throw .link(error)
        }
    }

    /// Writes with a Write Request (conversation mode only; callers check `mayWrite`).
    package func write(_ value: [UInt8], to characteristic: GATTCharacteristic) throws(BLEError) {
        try client.write(value, to: characteristic)
    }

    /// The next notification or indication on `handle`, handing every other one to the driver
    /// that owns it; nil when nothing arrives within `timeout`, or when more than
    /// `maximumOthersPerWait` others arrive first (a device that never answers).
    package func next(on handle: UInt16, timeout: Duration) throws(BLEError) -> GATTNotification? {
        var others = 0
        while let notification = try client.nextNotification(timeout: timeout) {
            seen(notification.hostTime)
            if notification.handle == handle { return notification }
            dispatch(notification)
            others += 1
            if others > Self.maximumOthersPerWait { return nil }
        }
        return nil
    }

    /// Notifications on other characteristics taken while waiting for one: a Record Access
    /// Control Point reports at most 65,535 records (its count is 16 bits), each in one
    /// notification, so more means the device is not going to answer.
    package static let maximumOthersPerWait = 65_536

    /// Hands a notification to its driver, or counts it as unclaimed.
    func dispatch(_ notification: GATTNotification) {
        seen(notification.hostTime)
        if let owner = owners[notification.handle] {
            owner.take(notification)
        } else {
            unclaimed[notification.handle, default: 0] += 1
        }
    }

    private func seen(_ time: Date) {
        firstHostTime = min(firstHostTime ?? time, time)
        lastHostTime = max(lastHostTime ?? time, time)
    }

    /// Failures an optional step survives: the device's refusal, or a request a passively
    /// replayed capture does not hold.
    func isDispensable(_ error: BLEError) -> Bool {
        switch error {
        case .attError: true
        case .requestNotInCapture: mode == .listenOnly
        default: false
        }
    }
}
