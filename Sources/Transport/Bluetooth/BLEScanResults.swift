import Foundation

/// A device heard during an LE scan: every report from its address merged.
package struct ScannedDevice: Sendable, Equatable {
    package var address: BluetoothAddress
    /// The raw address type of its latest report (0 public, 1 random, 2/3 resolved identity).
    package var addressType: UInt8
    /// The advertised name (complete preferred; from advertising data or a scan response).
    package var name: String?
    /// The latest RSSI in dBm, when the controller reported one.
    package var rssi: Int8?
    /// Every service UUID it advertised, in the order first heard.
    package var serviceUUIDs: [BluetoothUUID]
    package var reports: Int
    package var lastSeen: Date

    /// The peer to connect to, when the address type is one a connection can name.
    package var peer: BLEPeer? {
        LEAddressType(rawValue: addressType).map { BLEPeer(address: address, addressType: $0, name: name) }
    }
}

/// Merges advertising reports by address, keeping devices in the order first heard.
package struct BLEScanResults: Sendable, Equatable {
    package private(set) var devices: [ScannedDevice] = []
    private var positions: [BluetoothAddress: Int] = [:]

    package init() {}

    package mutating func add(_ report: AdvertisingReport, at time: Date) {
        let data = report.advertisingData
        let index: Int
        if let known = positions[report.address] {
            index = known
        } else {
            index = devices.count
            positions[report.address] = index
            devices.append(
                ScannedDevice(
                    address: report.address, addressType: report.addressType, name: nil, rssi: nil, serviceUUIDs: [], reports: 0,
                    lastSeen: time))
        }
        var device = devices[index]
        device.addressType = report.addressType
        device.reports += 1
        device.lastSeen = max(device.lastSeen, time)
        if report.rssi != 127 { device.rssi = report.rssi }
        if let name = data.localName, !name.isEmpty {
            let complete = data.structures.contains { $0.type == AdvertisingData.completeNameType }
            if device.name == nil || complete { device.name = name }
        }
        for uuid in data.serviceUUIDs where !device.serviceUUIDs.contains(uuid) { device.serviceUUIDs.append(uuid) }
        devices[index] = device
    }
}
