import ArgumentParser
import Foundation
import Importer

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract:
            "Imports a recorded device session: usbmon pcap or pcapng, USBPcap, an out/in transcript, or a Bluetooth btsnoop capture; or a FIT file, or a folder of them."
    )

    @Argument(help: ArgumentHelp("The capture file, a FIT file, or a folder of FIT files.", valueName: "capture"))
    var capture: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The driver to decode with, when the capture holds no device descriptors (e.g. dexcom).", valueName: "name"))
    var driver: String?

    @OptionGroup var storeOptions: StoreOptions

    func run() throws {
        let progress = ProgressLine.ifTerminal()
        defer { progress?.finish() }
        try reportingErrors {
            let store = try storeOptions.open()
            let result = try Importer(store: store).run(
                .capture(URL(fileURLWithPath: capture), driver: driver), context: ImportContext(progress: progress?.reporter ?? .silent))
            print(ImportReport(result, store: store).text)
        }
    }
}
