import ArgumentParser
import Drivers
import Foundation
import Transport
import TransportBlueZ

struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Lists nearby Bluetooth LE sensors that advertise a service glucobridge reads.",
        discussion: """
            Scanning uses a raw HCI socket, which needs the CAP_NET_RAW capability \
            (setcap cap_net_raw+ep on the binary) or root. Connecting to a sensor later needs neither.
            """)

    @Option(name: .long, help: ArgumentHelp("How long to listen.", valueName: "seconds"))
    var seconds: Int = 10

    @Option(name: .long, help: ArgumentHelp("The adapter to scan with (default: the first).", valueName: "hciN"))
    var adapter: String?

    @Flag(name: .long, help: "List every device heard, not only supported sensors.")
    var all = false

    func validate() throws {
        guard (1...300).contains(seconds) else { throw ValidationError("--seconds must be between 1 and 300") }
    }

    func run() throws {
        try reportingErrors {
            let results = try BLEScanner.scan(for: .seconds(seconds), adapter: adapter)
            for line in Self.lines(results.devices, all: all) { print(line) }
        }
    }

    /// The services the registry's Bluetooth drivers read, and how the list names them.
    static var supportedServices: [(uuid: BluetoothUUID, name: String)] {
        DriverRegistry.ble.map { ($0.service.uuid, $0.service.name) }
    }

    /// One line per device, strongest signal first:
    /// `C0:11:22:33:44:55,random  -60 dBm  "SynBand"  Heart Rate, Continuous Glucose Monitoring`.
    static func lines(_ devices: [ScannedDevice], all: Bool) -> [String] {
        func services(_ device: ScannedDevice) -> [String] {
            supportedServices.filter { device.serviceUUIDs.contains($0.uuid) }.map(\.name)
        }
        let shown = devices.filter { all || !services($0).isEmpty }
            .sorted { ($0.rssi ?? -128, $1.address) > ($1.rssi ?? -128, $0.address) }
        guard !shown.isEmpty else {
            let others = devices.count
            return [
                "no supported sensor found"
                    + (others > 0 ? " (\(others) other Bluetooth device\(others == 1 ? "" : "s") heard; --all lists them)" : "")
            ]
        }
        return shown.map { device in
            // The address as `import --ble` and `daemon --ble` take it.
            let address =
                LEAddressType(rawValue: device.addressType).map { BLEPeer(address: device.address, addressType: $0).argument }
                ?? "\(device.address)  type \(device.addressType)"
            let rssi = device.rssi.map { "\($0) dBm" } ?? "? dBm"
            let name = device.name.map { "\"\($0)\"" } ?? "(no name)"
            let supported = services(device)
            let what =
                supported.isEmpty
                ? (device.serviceUUIDs.isEmpty ? "" : "services " + device.serviceUUIDs.map(\.description).joined(separator: " "))
                : supported.joined(separator: ", ")
            return [address, rssi, name, what].filter { !$0.isEmpty }.joined(separator: "  ")
        }
    }
}
