import ArgumentParser
import Daemon
import Foundation
import Logging
import Transport

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

            Each --ble sensor is read every --ble-interval minutes: glucobridge connects, \
            imports what is new (listening to a band for at most --ble-listen minutes) and \
            disconnects. A sensor that cannot be read (out of range, off, no Bluetooth) is \
            tried again after 30 s, then 1, 2, 4 … up to 30 minutes.
            """)

    @Option(name: .long, help: ArgumentHelp("The spool folder to import capture files from (created when missing).", valueName: "folder"))
    var spool: String?

    @Flag(inversion: .prefixedNo, help: "Import supported readers when libusb reports them plugged in.")
    var usbHotplug = true

    @Option(
        name: .customLong("ble"),
        help: ArgumentHelp(
            "A Bluetooth LE sensor to read on a schedule, as `glucobridge scan` lists it: ADDRESS, or ADDRESS,public for a public address (default random). Repeat for several sensors.",
            valueName: "address[,random|public]"))
    var sensors: [String] = []

    @Option(name: .customLong("ble-interval"), help: ArgumentHelp("Minutes between two reads of each --ble sensor.", valueName: "minutes"))
    var bleInterval = 15

    @Option(
        name: .customLong("ble-listen"),
        help: ArgumentHelp(
            "Stop listening to a band after this many minutes per read (other imports wait meanwhile).", valueName: "minutes"))
    var bleListen = 1

    @Option(name: .long, help: ArgumentHelp("The Bluetooth adapter to connect with (default: the kernel's choice).", valueName: "hciN"))
    var adapter: String?

    @Option(
        name: .customLong("import-limit"),
        help: ArgumentHelp(
            "Abandon an import (storing nothing; a spool file goes to failed/) that runs longer than this many seconds; 0 abandons every import before it reads.",
            valueName: "seconds"))
    var importLimit = 600.0

    @Flag(
        name: .customLong("release-idle-pages"),
        help: ArgumentHelp(
            "Once idle for 5 s, hand the pages of the program file read at start-up or in an import back to the kernel (a smaller resident size at idle; the next import reads them from disk again)."
        ))
    var releaseIdlePages = false

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var syncOptions: DaemonSyncOptions

    func validate() throws {
        guard importLimit >= 0, importLimit <= 86_400 else { throw ValidationError("--import-limit must be from 0 to 86400 seconds") }
        guard (1...1440).contains(bleInterval) else { throw ValidationError("--ble-interval must be between 1 and 1440 minutes") }
        guard (1...60).contains(bleListen) else { throw ValidationError("--ble-listen must be between 1 and 60 minutes") }
        guard bleListen < bleInterval || sensors.isEmpty else {
            throw ValidationError("--ble-listen (\(bleListen) min) must be shorter than --ble-interval (\(bleInterval) min)")
        }
        _ = try peers()
    }

    /// The `--ble` sensors, each `ADDRESS[,random|public]` (`BLEPeer(parsing:)`).
    func peers() throws -> [BLEPeer] {
        try sensors.map { text in
            do {
                return try BLEPeer(parsing: text)
            } catch {
                throw ValidationError("--ble \(error)")
            }
        }
    }

    func run() async throws {
        let logger = Logger(label: "glucobridge.daemon")
        if await DaemonExecutor.tasksRunOnTheLoop() {
            logger.info("Swift tasks run on the daemon's event loop thread")
        } else {
            logger.notice("Swift tasks run on the default global executor (the daemon's event loop takes them over with Swift 6.0 to 6.3 only)")
        }
        do {
            let store = try storeOptions.open(access: .concurrent)
            let sources = try peers().map {
                BluetoothSource(peer: $0, adapter: adapter, interval: .seconds(bleInterval * 60), listenMinutes: bleListen)
            }
            var configuration = DaemonConfiguration(
                spool: spool.map { URL(fileURLWithPath: $0) }, usbHotplug: usbHotplug,
                spoolTiming: SpoolTiming(importLimit: .milliseconds(Int64((importLimit * 1000).rounded(.up)))), polledSources: sources)
            configuration.uploader = try syncOptions.uploader(store: store, logger: logger)
            configuration.releaseIdlePages = releaseIdlePages
            try await GlucoBridgeDaemon.run(configuration, store: store, logger: logger)
        } catch let error as ExitCode {
            throw error
        } catch {
            logger.critical("daemon cannot run", metadata: ["error": "\(error)"])
            throw ExitCode(1)
        }
    }
}

extension DaemonCommand {
    /// Runs the daemon's Swift Concurrency jobs on one NIO event loop thread instead of
    /// libdispatch's global queues. On Linux, libdispatch watches the worker threads of its global
    /// queues with a timer that fires every second for the rest of the process once one has run
    /// (`_dispatch_workq_monitor_pools`, swift-corelibs-libdispatch's `src/event/workqueue.c`): an
    /// idle daemon would wake 60 times a minute. An event loop sleeps in `epoll_wait` until it has
    /// work. The daemon's blocking work (imports) runs on its own queue (`ImportQueue`), so one
    /// thread is enough; its sleeps use `SerialTimer`, not `Task.sleep`, for the same reason.
    ///
    /// The hooks are the runtime's private variables, not API: they are used only with the
    /// compilers they have been checked with (Swift 6.0 to 6.3, as swift-nio guards its own
    /// takeover by compiler version). With any other compiler the daemon keeps the default
    /// global executor, and says so when it starts (`DaemonExecutor.tasksRunOnTheLoop()`).
    /// Called once, before any task is started; false when the hooks were not taken over
    /// (another compiler, or another global executor installed already).
    @discardableResult
    static func takeOverConcurrencyExecutor() -> Bool {
        DaemonExecutor.isInstalled
    }
}
