import ArgumentParser
import Foundation
import Importer
import Transport

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Imports from the supported reader plugged in over USB.",
        discussion: """
            Without --device, the first supported reader found is read. glucobridge-import@.service \
            passes --device /dev/bus/usb/BUS/DEVICE for the reader udev saw arrive.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp(
        "Also write the session to this file as a usbmon pcap (Wireshark opens it; `glucobridge replay` plays it back).",
        valueName: "file"))
    var record: String?

    @Option(name: .long, help: ArgumentHelp(
        "The reader to read: BUS:ADDRESS (1:5), /dev/bus/usb/001/005, or its sysfs folder (/sys/bus/usb/devices/1-1.4).",
        valueName: "device"))
    var device: String?

    func run() throws {
        try reportingErrors {
            let location = try device.map { try USBDeviceLocation(parsing: $0) }
            let context = try LibUSBContext()
            let store = try storeOptions.open()
            let importer = Importer(store: store)
            let recordURL = record.map { URL(fileURLWithPath: $0) }
            let outcome = try location.map { try importer.importDevice(at: $0, context: context, recordTo: recordURL) }
                ?? importer.importLive(context: context, recordTo: recordURL)
            print(ImportReport(outcome: outcome, store: store).text)
            if let record { print("session recorded to \(record)") }
        }
    }
}
