import ArgumentParser
import Foundation
import Importer

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Imports a recorded device session: usbmon pcap or pcapng, USBPcap, an out/in transcript, or a Bluetooth btsnoop capture.")

    @Argument(help: ArgumentHelp("The capture file.", valueName: "capture"))
    var capture: String

    @Option(name: .long, help: ArgumentHelp(
        "The driver to decode with, when the capture holds no device descriptors (e.g. dexcom).", valueName: "name"))
    var driver: String?

    @OptionGroup var storeOptions: StoreOptions

    func run() throws {
        try reportingErrors {
            let store = try storeOptions.open()
            let url = URL(fileURLWithPath: capture)
            if Importer.isBTSnoop(url) {
                let outcomes = try Importer(store: store).replayBLEDevices(captureAt: url)
                print(Self.sections(outcomes.map { BLEImportReport(outcome: $0, store: store).text }))
                return
            }
            let outcomes = try Importer(store: store).replayDevices(captureAt: url, driverName: driver)
            print(Self.sections(outcomes.map { ImportReport(outcome: $0, store: store).text }))
        }
    }

    /// One report, or a section per device (`device 1 of 2:`) when the capture held several.
    static func sections(_ reports: [String]) -> String {
        guard reports.count != 1 else { return reports[0] }
        return reports.enumerated().map { "device \($0.offset + 1) of \(reports.count):\n\($0.element)" }.joined(separator: "\n\n")
    }
}
