import ArgumentParser
import CaptureBluetooth
import Transport

/// `import --ble ADDRESS` and the options that go with it.
struct BLEImportOptions: ParsableArguments {
    @Option(name: .customLong("ble"), help: ArgumentHelp(
        "Import from the Bluetooth LE sensor at this address (as `glucobridge scan` lists it) instead of USB.",
        valueName: "address"))
    var address: String?

    @Option(name: .customLong("address-type"), help: ArgumentHelp(
        "The sensor's address type, as `glucobridge scan` shows it: random (most sensors) or public.", valueName: "type"))
    var addressType: String = "random"

    @Option(name: .long, help: ArgumentHelp("The adapter to connect with (default: the kernel's choice).", valueName: "hciN"))
    var adapter: String?

    @Option(name: .long, help: ArgumentHelp(
        "Stop listening to a band after this many minutes (it also stops when the sensor disconnects or is quiet for a minute).",
        valueName: "n"))
    var minutes: Int = 60

    func validate() throws {
        guard (1...1440).contains(minutes) else { throw ValidationError("--minutes must be between 1 and 1440") }
        guard address != nil || (adapter == nil && addressType == "random") else {
            throw ValidationError("--address-type and --adapter go with --ble ADDRESS")
        }
        _ = try peer()
    }

    /// The sensor to connect to, nil without `--ble`.
    func peer() throws -> BLEPeer? {
        guard let address else { return nil }
        guard let parsed = BluetoothAddress(address) else {
            throw ValidationError("\"\(address)\" is not a Bluetooth address (six hex pairs: C0:11:22:33:44:55)")
        }
        let type: LEAddressType
        switch addressType.lowercased() {
        case "random": type = .random
        case "public": type = .public
        default: throw ValidationError("--address-type is random or public, not \"\(addressType)\"")
        }
        return BLEPeer(address: parsed, addressType: type)
    }
}
