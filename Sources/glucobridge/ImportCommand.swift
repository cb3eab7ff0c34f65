import ArgumentParser
import Foundation
import Importer
import Transport

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Imports from the supported reader plugged in over USB.")

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp(
        "Also write the session to this file as a usbmon pcap (Wireshark opens it; `glucobridge replay` plays it back).",
        valueName: "file"))
    var record: String?

    func run() throws {
        try reportingErrors {
            let context = try LibUSBContext()
            let store = try storeOptions.open()
            let outcome = try Importer(store: store).importLive(context: context, recordTo: record.map { URL(fileURLWithPath: $0) })
            print(ImportReport(outcome: outcome, store: store).text)
            if let record { print("session recorded to \(record)") }
        }
    }
}
