import ArgumentParser
import Transport

/// `import --ble ADDRESS` and the options that go with it.
struct BLEImportOptions: ParsableArguments {
    @Option(
        name: .customLong("ble"),
        help: ArgumentHelp(
            "Import from the Bluetooth LE sensor at this address instead of USB, as `glucobridge scan` lists it: ADDRESS, or ADDRESS,public for a public address (default random).",
            valueName: "address[,random|public]"))
    var address: String?

    /// The old way to give the address type; still read, with a hint naming `--ble ADDRESS,TYPE`.
    @Option(
        name: .customLong("address-type"),
        help: ArgumentHelp(
            "The old form of --ble ADDRESS,TYPE: random or public.", valueName: "type", visibility: .hidden))
    var addressType: String?

    @Option(name: .long, help: ArgumentHelp("The adapter to connect with (default: the kernel's choice).", valueName: "hciN"))
    var adapter: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Stop listening to a band after this many minutes (it also stops when the sensor disconnects or is quiet for a minute).",
            valueName: "n"))
    var minutes: Int = 60

    func validate() throws {
        guard (1...1440).contains(minutes) else { throw ValidationError("--minutes must be between 1 and 1440") }
        guard address != nil || (adapter == nil && addressType == nil) else {
            throw ValidationError("--address-type and --adapter go with --ble ADDRESS")
        }
        _ = try peer()
    }

    /// The sensor to connect to, nil without `--ble`.
    func peer() throws -> BLEPeer? {
        guard let address else { return nil }
        var peer: BLEPeer
        do {
            peer = try BLEPeer(parsing: address)
        } catch {
            throw ValidationError("--ble \(error)")
        }
        if let addressType {
            guard !address.contains(",") else {
                throw ValidationError("--ble \(address) names its address type already: leave out --address-type \(addressType)")
            }
            do {
                peer.addressType = try BLEPeer.addressType(addressType, in: "--address-type \(addressType)")
            } catch {
                throw ValidationError("\(error)")
            }
        }
        return peer
    }

    /// For the old form `--ble ADDRESS --address-type TYPE`: one line naming the form to write
    /// instead. Nil for the current form.
    func oldFormHint() -> String? {
        guard let address, let addressType, let peer = try? peer() else { return nil }
        return "hint: --ble \(address) --address-type \(addressType) still works; write it as --ble \(peer.argument)"
    }
}
