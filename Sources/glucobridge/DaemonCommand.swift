import ArgumentParser
import Daemon
import Foundation
import Logging

struct DaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "Runs in the background: imports readers when plugged in and capture files dropped into a spool folder.",
        discussion: """
            A capture file placed in the spool folder is imported as `glucobridge replay` would \
            import it, then moved to done/ (with NAME.report.txt) or failed/ (with \
            NAME.reason.txt). Write a file under a hidden or .part name and rename it into the \
            folder, or just copy it in: a file is taken once its writer closes it. SIGTERM or \
            SIGINT stop the daemon cleanly. `glucobridge status` shows what it is doing.
            """)

    @Option(name: .long, help: ArgumentHelp("The spool folder to import capture files from (created when missing).", valueName: "folder"))
    var spool: String?

    @Flag(inversion: .prefixedNo, help: "Import supported readers when libusb reports them plugged in.")
    var usbHotplug = true

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        let logger = Logger(label: "glucobridge.daemon")
        do {
            let store = try storeOptions.open()
            let configuration = DaemonConfiguration(
                spool: spool.map { URL(fileURLWithPath: $0) }, usbHotplug: usbHotplug)
            try await GlucoBridgeDaemon.run(configuration, store: store, logger: logger)
        } catch let error as ExitCode {
            throw error
        } catch {
            logger.critical("daemon cannot run", metadata: ["error": "\(error)"])
            throw ExitCode(1)
        }
    }
}
