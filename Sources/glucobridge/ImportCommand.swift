import ArgumentParser
import Foundation
import Importer
import LiveImport
import Transport
import TransportLibUSB

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Imports from the supported reader plugged in over USB, or a Bluetooth LE sensor (--ble).",
        discussion: """
            Without --device or --ble, the first supported USB reader found is read. \
            glucobridge-import@.service passes --device /dev/bus/usb/BUS/DEVICE for the reader udev saw arrive.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Also write the session to this file: a usbmon pcap, or a btsnoop file with --ble (Wireshark opens both; `glucobridge replay` plays them back).",
            valueName: "file"))
    var record: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The reader to read: BUS:ADDRESS (1:5), /dev/bus/usb/001/005, or its sysfs folder (/sys/bus/usb/devices/1-1.4).",
            valueName: "device"))
    var device: String?

    @OptionGroup var bluetooth: BLEImportOptions

    func validate() throws {
        if device != nil && bluetooth.address != nil {
            throw ValidationError("--device names a USB reader and --ble a Bluetooth sensor: give one of them.")
        }
    }

    func run() throws {
        let progress = ProgressLine.ifTerminal()
        defer { progress?.finish() }
        try reportingErrors {
            let context = ImportContext(
                recordTo: record.map { URL(fileURLWithPath: $0) }, limits: .live(minutes: bluetooth.minutes),
                progress: progress?.reporter ?? .silent)
            let source: ImportSource
            if let peer = try bluetooth.peer() {
                if let hint = bluetooth.oldFormHint() { FileHandle.standardError.write(Data((hint + "\n").utf8)) }
                source = .bluetooth(BlueZPeer(peer, adapter: bluetooth.adapter))
            } else {
                let location = try device.map { try USBDeviceLocation(parsing: $0) }
                let usb = try LibUSBContext()
                source = .usb(location.map { LibUSBDevice.at($0, in: usb) } ?? LibUSBDevice.first(in: usb))
            }
            let store = try storeOptions.open()
            let result = try Importer(store: store).run(source, context: context)
            print(ImportReport(result, store: store).text)
            if let record { print("session recorded to \(record)") }
        }
    }
}
