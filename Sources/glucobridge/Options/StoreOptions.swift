import ArgumentParser
import Foundation

/// Options every command that opens the store shares.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store file.", valueName: "path"))
    var store: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The time zone Days are counted in, set when the store is created (default: the system zone).",
            valueName: "zone"))
    var tz: String?

    /// `--store`, else `$XDG_DATA_HOME/glucobridge/store.sqlite`, else `~/.local/share/glucobridge/store.sqlite`.
    var path: String {
        if let store { return store }
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
        return (base as NSString).appendingPathComponent("glucobridge/store.sqlite")
    }

    func timeZone() throws -> TimeZone? {
        guard let tz else { return nil }
        guard let zone = TimeZone(identifier: tz) else {
            throw CLIError("unknown time zone \"\(tz)\"; use an IANA name such as Europe/Berlin or America/Los_Angeles")
        }
        return zone
    }
}
