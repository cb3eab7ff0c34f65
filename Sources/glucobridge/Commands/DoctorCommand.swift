import ArgumentParser
import Foundation
import Setup

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract:
            "Checks the store, USB and the readers, the FreeStyle Libre 2 / Libre 3 keys, Bluetooth and the installed files, and says how to fix each problem.",
        discussion: "Exits with status 1 when any check fails.")

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var storeOptions: StoreOptions

    func run() throws {
        try reportingErrors {
            let findings = Doctor(
                storePath: storeOptions.path, environment: ProcessInfo.processInfo.environment,
                binaryPath: InstallCommand.runningBinary
            ).run()
            if outputOptions.json {
                print(
                    try Format.json(
                        DoctorJSON(
                            version: GlucoBridgeVersion.current,
                            findings: findings.map { .init(status: $0.status.rawValue, subject: $0.subject, message: $0.message, fix: $0.fix) })))
            } else {
                print("glucobridge \(GlucoBridgeVersion.current) doctor")
                print(Doctor.render(findings))
            }
            if findings.contains(where: { $0.status == .fail }) { throw ExitCode(1) }
        }
    }
}

/// `doctor --json`: every check, `status` ok, info or fail, with the fix for a failure.
struct DoctorJSON: Encodable {
    struct Finding: Encodable {
        var status: String
        var subject: String
        var message: String
        var fix: String?
    }

    var version: String
    var findings: [Finding]
}
