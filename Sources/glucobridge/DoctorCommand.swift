import ArgumentParser
import Foundation
import Setup

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Checks the store, USB and the readers, Bluetooth and the installed files, and says how to fix each problem.",
        discussion: "Exits with status 1 when any check fails.")

    @OptionGroup var storeOptions: StoreOptions

    func run() throws {
        try reportingErrors {
            let findings = Doctor(
                storePath: storeOptions.path, environment: ProcessInfo.processInfo.environment,
                binaryPath: InstallCommand.runningBinary
            ).run()
            print("glucobridge \(GlucoBridgeVersion.current) doctor")
            print(Doctor.render(findings))
            if findings.contains(where: { $0.status == .fail }) { throw ExitCode(1) }
        }
    }
}
