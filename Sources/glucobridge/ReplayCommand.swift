import ArgumentParser
import Foundation
import Importer

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Imports a recorded device session: usbmon pcap or pcapng, USBPcap, or an out/in transcript.")

    @Argument(help: ArgumentHelp("The capture file.", valueName: "capture"))
    var capture: String

    @Option(name: .long, help: ArgumentHelp(
        "The driver to decode with, when the capture holds no device descriptors (e.g. dexcom).", valueName: "name"))
    var driver: String?

    @OptionGroup var storeOptions: StoreOptions

    func run() throws {
        try reportingErrors {
            let store = try storeOptions.open()
            let outcome = try Importer(store: store).replay(captureAt: URL(fileURLWithPath: capture), driverName: driver)
            print(ImportReport(outcome: outcome, store: store).text)
        }
    }
}
