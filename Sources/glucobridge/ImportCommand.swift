import ArgumentParser
import Foundation
import Importer
import Transport

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Imports from the supported reader plugged in over USB, or a Bluetooth LE sensor (--ble).")

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp(
        "Also write the session to this file: a usbmon pcap, or a btsnoop file with --ble (Wireshark opens both; `glucobridge replay` plays them back).",
        valueName: "file"))
    var record: String?

    @OptionGroup var bluetooth: BLEImportOptions

    func run() throws {
        try reportingErrors {
            if let peer = try bluetooth.peer() {
                let store = try storeOptions.open()
                let outcome = try Importer(store: store).importBLE(
                    peer: peer, adapter: bluetooth.adapter, recordTo: record.map { URL(fileURLWithPath: $0) },
                    limits: .live(minutes: bluetooth.minutes))
                print(BLEImportReport(outcome: outcome, store: store).text)
                if let record { print("session recorded to \(record)") }
                return
            }
            let context = try LibUSBContext()
            let store = try storeOptions.open()
            let outcome = try Importer(store: store).importLive(context: context, recordTo: record.map { URL(fileURLWithPath: $0) })
            print(ImportReport(outcome: outcome, store: store).text)
            if let record { print("session recorded to \(record)") }
        }
    }
}
