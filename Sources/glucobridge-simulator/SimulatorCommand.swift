import ArgumentParser
import Drivers
import Foundation
import Simulators

/// A simulated FreeStyle reader served on file descriptors, for hosts in other processes and
/// for a device lab's HID gadget: `glucobridge-simulator freestyle --model libre2 --device
/// /dev/hidg0` answers the host's 64-byte output reports with the reader's input reports.
/// Without `--device` it reads the host's reports on stdin and writes its own to stdout.
@main
struct SimulatorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "glucobridge-simulator",
        abstract: "Serves a simulated FreeStyle reader (Libre, Libre 2, Libre 3) as 64-byte HID reports on a file descriptor.",
        subcommands: [FreeStyleCommand.self])
}

struct FreeStyleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "freestyle",
        abstract: "A FreeStyle reader speaking the shared HID protocol; Libre 2 and Libre 3 in the encrypted session.",
        discussion: """
            Records come from --records, a JSON object: {"serial": "…", "date": "M,D,YY", "time": "H,M", \
            "history": ["row", …], "arresult": ["row", …]} (rows as the reader sends them, newest first, without \
            line ends; every key optional). Without it the reader holds the demo records of fixtures/freestyle (a Libre 3 in its own row layout). \
            A Libre 2 or Libre 3 needs the keys, found as glucobridge finds them (see docs/devices.md).
            """)

    enum Model: String, ExpressibleByArgument, CaseIterable {
        case libre, libre2, libre3
        var productID: UInt16 {
            switch self {
            case .libre: 0x3650
            case .libre2: 0x3950
            case .libre3: 0x3960
            }
        }
    }

    struct Records: Decodable {
        var serial: String?
        var softwareVersion: String?
        var date: String?
        var time: String?
        var history: [String]?
        var arresult: [String]?
    }

    @Option(help: "libre, libre2 or libre3.")
    var model: Model = .libre2

    @Option(help: "A HID gadget node (e.g. /dev/hidg0) read for the host's reports and written with the reader's; default stdin and stdout.")
    var device: String?

    @Option(help: "The records to serve (JSON, see above).")
    var records: String?

    @Option(help: "A key file (the format docs/devices.md gives); default: where glucobridge looks.")
    var keys: String?

    @Option(help: "Also write the session to this file as a usbmon pcap (what the host's USB stack would see).")
    var record: String?

    @Flag(help: "Random nonces and IVs, as a real reader's (default: the same every session).")
    var random = false

    func run() throws {
        var given = Records()
        if let records {
            given = try JSONDecoder().decode(Records.self, from: Data(contentsOf: URL(fileURLWithPath: records)))
        }
        let reader = FreeStyleReaderSimulator(
            productID: model.productID, outEndpoint: true, serial: given.serial ?? FreeStyleDemo.serial,
            softwareVersion: given.softwareVersion ?? (model == .libre ? "2.3.2" : "1.0.12"),
            date: given.date ?? FreeStyleDemo.date, time: given.time ?? FreeStyleDemo.time,
            records: [
                "$history?": given.history ?? (model == .libre3 ? FreeStyleDemo.libre3History : FreeStyleDemo.history),
                "$arresult?": given.arresult ?? (model == .libre3 ? FreeStyleDemo.libre3Arresult : FreeStyleDemo.arresult),
            ],
            hostClock: Date.init)
        if model != .libre {
            var environment = ProcessInfo.processInfo.environment
            if let keys { environment["GLUCOBRIDGE_FREESTYLE_KEYS"] = keys }
            reader.keys = try FreeStyleKeys.locate(environment: environment)
        }
        if random {
            reader.randomBytes = { count in
                var generator = SystemRandomNumberGenerator()
                return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            }
        }
        if let device {
            let fd = open(device, O_RDWR)
            guard fd >= 0 else { throw ValidationError("\(device): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            try reader.serve(input: fd, output: fd, recording: record.map { URL(fileURLWithPath: $0) })
        } else {
            try reader.serve(input: STDIN_FILENO, output: STDOUT_FILENO, recording: record.map { URL(fileURLWithPath: $0) })
        }
    }
}
