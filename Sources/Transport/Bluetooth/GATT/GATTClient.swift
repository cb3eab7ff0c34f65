import Foundation

/// One ATT PDU as a bearer delivers it: the bytes and the host clock when they arrived.
package struct ATTBearerPDU: Sendable, Equatable {
    package var bytes: [UInt8]
    package var hostTime: Date

    package init(bytes: [UInt8], hostTime: Date) {
        self.bytes = bytes
        self.hostTime = hostTime
    }
}

/// The channel ATT PDUs travel on, one PDU per call: an L2CAP socket on the ATT fixed channel
/// live, a capture in a replay, either wrapped by a recorder. `ATTClient` runs the protocol on top,
/// so live, replayed and recorded sessions share every line of GATT code. Calls are synchronous
/// and made from one thread at a time.
package protocol ATTBearer: AnyObject {
    /// The device at the other end.
    var peer: BLEPeer { get }
    /// The HCI connection handle of the link, when known.
    var connectionHandle: UInt16? { get }
    /// Sends one PDU.
    func send(_ pdu: [UInt8]) throws(BLEError)
    /// The next PDU from the device, or nil when none arrived within `timeout`. Throws
    /// `.disconnected` once the link is gone.
    func receive(timeout: Duration) throws(BLEError) -> ATTBearerPDU?
    /// Raises the link's security after the device answered with `error` (insufficient
    /// authentication or encryption), as BlueZ does; true when the request should be retried.
    func raiseSecurity(after error: ATTErrorCode) throws(BLEError) -> Bool
    /// Closes the link. Idempotent.
    func close()
}

/// What a driver needs from a GATT client. Implemented by `ATTClient` over any `ATTBearer`, so a
/// driver cannot tell a live device from a replayed capture. Calls are synchronous and made from
/// one thread at a time; notifications and indications are pulled with `nextNotification`.
package protocol GATTClient: AnyObject {
    /// The device at the other end.
    var peer: BLEPeer { get }
    /// The current ATT MTU (23 until an exchange raises it).
    var mtu: Int { get }
    /// Exchanges MTUs; returns the MTU now in force (the smaller of the two).
    func exchangeMTU(preferred: Int) throws(BLEError) -> Int
    /// All primary services, in handle order, without their characteristics.
    func discoverPrimaryServices() throws(BLEError) -> [GATTService]
    /// The characteristics of `service`, without their descriptors.
    func discoverCharacteristics(of service: GATTService) throws(BLEError) -> [GATTCharacteristic]
    /// The descriptors between a characteristic's value handle and its end handle.
    func discoverDescriptors(of characteristic: GATTCharacteristic) throws(BLEError) -> [GATTDescriptor]
    /// Reads an attribute's value (long values are completed with Read Blob).
    func read(handle: UInt16) throws(BLEError) -> GATTValue
    /// Writes with a Write Request and waits for the Write Response.
    func write(_ value: [UInt8], handle: UInt16) throws(BLEError)
    /// Writes with a Write Command (no response).
    func writeWithoutResponse(_ value: [UInt8], handle: UInt16) throws(BLEError)
    /// The next notification or indication (indications are confirmed before they are returned),
    /// or nil when none arrives within `timeout`. Throws `.disconnected` when the link ends.
    func nextNotification(timeout: Duration) throws(BLEError) -> GATTNotification?
    /// Closes the connection. Idempotent.
    func disconnect()
}

extension GATTClient {
    /// Services, then the characteristics of each, then the descriptors of each characteristic
    /// with handles to spare (the order BlueZ's gatt-client follows).
    package func discoverAll() throws(BLEError) -> GATTDatabase {
        var services = try discoverPrimaryServices()
        for index in services.indices {
            services[index].characteristics = try discoverCharacteristics(of: services[index])
        }
        for s in services.indices {
            for c in services[s].characteristics.indices {
                services[s].characteristics[c].descriptors = try discoverDescriptors(of: services[s].characteristics[c])
            }
        }
        return GATTDatabase(services: services)
    }

    /// Writes the characteristic's CCCD: notifications, indications or off. Its descriptors must
    /// have been discovered.
    package func subscribe(_ characteristic: GATTCharacteristic, to mode: GATTSubscription) throws(BLEError) {
        guard let cccd = characteristic.cccd else {
            throw .cannotSubscribe(
                characteristic: characteristic.uuid, valueHandle: characteristic.valueHandle,
                reason: characteristic.descriptors.isEmpty
                    ? "it has no descriptors (were they discovered?)" : "it has no Client Characteristic Configuration descriptor")
        }
        let needed: GATTCharacteristicProperties? =
            switch mode {
            case .notifications: .notify
            case .indications: .indicate
            case .off: nil
            }
        if let needed, !characteristic.properties.contains(needed) {
            throw .cannotSubscribe(
                characteristic: characteristic.uuid, valueHandle: characteristic.valueHandle,
                reason:
                    "its properties (\(Hex.literal(characteristic.properties.rawValue, digits: 2))) do not allow \(mode == .notifications ? "notifications" : "indications")"
            )
        }
        try write(mode.cccdValue, handle: cccd.handle)
    }

    /// Subscribes with notifications when the characteristic has them, else indications.
    package func subscribe(_ characteristic: GATTCharacteristic) throws(BLEError) {
        try subscribe(characteristic, to: characteristic.properties.contains(.notify) ? .notifications : .indications)
    }

    package func read(_ characteristic: GATTCharacteristic) throws(BLEError) -> GATTValue {
        try read(handle: characteristic.valueHandle)
    }

    package func write(_ value: [UInt8], to characteristic: GATTCharacteristic) throws(BLEError) {
        try write(value, handle: characteristic.valueHandle)
    }
}
