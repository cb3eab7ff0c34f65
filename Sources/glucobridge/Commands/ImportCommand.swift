import ArgumentParser
import Drivers
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
            Without --device or --ble, a Garmin watch whose USB disk is mounted is read first, else the first supported USB \
            reader found. glucobridge-import@.service passes --device /dev/bus/usb/BUS/DEVICE for the reader udev saw arrive; \
            for a Garmin watch there, the import waits up to --mount-wait seconds for its volume to be mounted.
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

    @Option(
        name: .customLong("mount-wait"),
        help: ArgumentHelp("With --device naming a Garmin watch: how long to wait for its volume to be mounted.", valueName: "seconds"))
    var mountWait: Int = 60

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
                if try importGarmin(at: location, context: context) { return }
                let usb = try LibUSBContext()
                source = .usb(location.map { LibUSBDevice.at($0, in: usb) } ?? LibUSBDevice.first(in: usb))
            }
            let store = try storeOptions.open()
            let result = try Importer(store: store).run(source, context: context)
            print(ImportReport(result, store: store).text)
            if let record { print("session recorded to \(record)") }
        }
    }

    /// Imports the Garmin watch at `location` (or the first one whose volume is mounted), true
    /// when there was one. Without a location, a watch not mounted is skipped for the USB readers,
    /// and named when there is none.
    func importGarmin(at location: USBDeviceLocation?, context: ImportContext) throws -> Bool {
        let table = try MountTable()
        let found: (disk: GarminDisk, root: URL)?
        do {
            found = try GarminDisk.volume(at: location, waiting: location == nil ? 0 : max(0, mountWait), table: table)
        } catch {
            guard location == nil,
                (try? LibUSBContext().devices(matching: DriverRegistry.usbProducts.map { ($0.vendorID, $0.productID) }))?
                    .isEmpty ?? true
            else { return false }
            throw error
        }
        guard let found else {
            // A Garmin watch that speaks MTP: the one at `location`, or the first plugged in.
            let watches = GarminMTP.plugged()
            let watch = if let location { watches.contains(location) ? location : nil } else { watches.first }
            guard let watch else { return false }
            let store = try storeOptions.open()
            let imported = try GarminMTP.importWatch(at: watch, importer: Importer(store: store), context: context)
            print("Garmin watch \(imported.origin): \(imported.files) FIT file\(imported.files == 1 ? "" : "s")\n")
            print(ImportReport(imported.result, store: store).text)
            if record != nil { print("--record is not used for a Garmin watch: its FIT files are their own capture") }
            return true
        }
        let store = try storeOptions.open()
        let result = try Importer(store: store).importGarminVolume(found.root, origin: found.disk.origin, context: context)
        print(
            "Garmin watch \(found.disk.origin), volume \(found.root.path): \(result.devices.count) FIT file\(result.devices.count == 1 ? "" : "s")\n")
        print(ImportReport(result, store: store).text)
        if record != nil { print("--record is not used for a Garmin watch: its FIT files are their own capture") }
        return true
    }
}
