import ArgumentParser
import Drivers
import Foundation
import TransportBlueZ
import TransportLibUSB

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "Lists the supported readers connected over USB, and whether Bluetooth is available.")

    @OptionGroup var outputOptions: OutputOptions

    func run() throws {
        try reportingErrors {
            let context = try LibUSBContext()
            let products = DriverRegistry.usbProducts
            let found = try context.devices(matching: products.map { ($0.vendorID, $0.productID) })
            if outputOptions.json {
                let bluetooth: DevicesJSON.Bluetooth =
                    switch BluetoothProbe.check() {
                    case .available(let adapters): .init(available: true, adapters: adapters, reason: nil)
                    case .unavailable(let reason): .init(available: false, adapters: [], reason: reason)
                    }
                print(
                    try Format.json(
                        DevicesJSON(
                            usb: found.map { device in
                                DevicesJSON.USB(
                                    id: device.idString,
                                    name: products.first { $0.vendorID == device.vendorID && $0.productID == device.productID }?.label,
                                    bus: Int(device.bus), address: Int(device.address), serial: device.serialNumber)
                            },
                            bluetooth: bluetooth)))
                return
            }
            if found.isEmpty {
                print("no supported device found")
            }
            for device in found {
                let name = products.first { $0.vendorID == device.vendorID && $0.productID == device.productID }?.label ?? "unknown"
                let serial = device.serialNumber.map { ", serial \($0)" } ?? ""
                print("\(device.idString)  \(name)  (bus \(device.bus) address \(device.address)\(serial))")
            }
            switch BluetoothProbe.check() {
            case .available(let adapters): print("Bluetooth: \(adapters.joined(separator: ", "))")
            case .unavailable(let reason): print("Bluetooth: not available: \(reason)")
            }
        }
    }
}

/// `devices --json`.
struct DevicesJSON: Encodable {
    struct USB: Encodable {
        var id: String
        var name: String?
        var bus: Int
        var address: Int
        var serial: String?
    }

    struct Bluetooth: Encodable {
        var available: Bool
        var adapters: [String]
        var reason: String?
    }

    var usb: [USB]
    var bluetooth: Bluetooth
}
