import ArgumentParser
import Drivers
import Foundation
import Transport

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "Lists the supported readers connected over USB, and whether Bluetooth is available.")

    func run() throws {
        try reportingErrors {
            let context = try LibUSBContext()
            let products = DriverRegistry.usbProducts
            let found = try context.devices(matching: products.map { ($0.vendorID, $0.productID) })
            if found.isEmpty {
                print("no supported device found")
            }
            for device in found {
                let name = products.first { $0.vendorID == device.vendorID && $0.productID == device.productID }?.name ?? "unknown"
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
