import Foundation
import ImportTestSupport
import TestSupport
import XCTest

@testable import Setup

/// `install` run from the built binary: `--dry-run`, and a real install staged under a temporary
/// `--destdir` that `doctor` then recognises.
final class InstallEndToEndTests: XCTestCase {
    let environment = ["HOME": "/home/ana", "PATH": "/usr/bin"]

    /// The built binary prints the plan and changes nothing.
    func testDryRunFromTheBuiltBinary() throws {
        let folder = try Fixtures.temporaryDirectory()
        let prefix = folder.appendingPathComponent("prefix").path
        let binary = BuiltProducts.executable("glucobridge")
        let result = try runProcess(binary, ["install", "--system", "--prefix", prefix, "--dry-run"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines.first, "install glucobridge \(GlucoBridgeVersion.current) for the system, prefix \(prefix) (dry run: nothing is changed)")
        XCTAssertEqual(lines[1], "copy \(binary.resolvingSymlinksInPath().path) to \(prefix)/bin/glucobridge (mode 0755)")
        XCTAssertTrue(lines.contains("write /etc/udev/rules.d/60-glucobridge.rules (mode 0644) from udev/60-glucobridge.rules"))
        XCTAssertTrue(lines.contains("run udevadm control --reload"))
        XCTAssertTrue(lines.contains("run systemctl daemon-reload"))
        XCTAssertEqual(lines.count, 12)
        XCTAssertFalse(FileManager.default.fileExists(atPath: prefix), "a dry run creates nothing")

        let uninstall = try runProcess(binary, ["uninstall", "--user", "--prefix", prefix, "--dry-run"])
        XCTAssertEqual(uninstall.status, 0, uninstall.stderr)
        XCTAssertTrue(uninstall.stdout.contains("remove \(prefix)/bin/glucobridge\n"), uninstall.stdout)
        XCTAssertTrue(uninstall.stdout.contains("run systemctl --user disable --now glucobridge.service\n"), uninstall.stdout)
    }

    /// Staged for real: files in place with their modes, found and matched by doctor, then removed.
    func testStagedInstallDoctorAndUninstall() throws {
        let destdir = try Fixtures.temporaryDirectory().path
        let binary = try Fixtures.temporaryDirectory().appendingPathComponent("glucobridge")
        try FileManager.default.copyItem(at: BuiltProducts.executable("glucobridge"), to: binary)
        let layout = try InstallLayout(mode: .system, prefix: "/opt/gb", environment: environment)
        let runner = InstallRunner(dryRun: false, destdir: destdir, environment: environment)
        var printed: [String] = []
        XCTAssertTrue(runner.perform(InstallPlan.install(layout, binarySource: binary.path)) { printed.append($0) }, printed.joined(separator: "\n"))
        XCTAssertTrue(printed.contains("skip (files staged in \(destdir)): run systemctl daemon-reload"), "\(printed)")

        func staged(_ path: String) -> String { destdir + path }
        func mode(_ path: String) throws -> Int {
            try XCTUnwrap(FileManager.default.attributesOfItem(atPath: staged(path))[.posixPermissions] as? Int)
        }
        XCTAssertEqual(try mode("/opt/gb/bin/glucobridge"), 0o755)
        XCTAssertEqual(try mode("/etc/udev/rules.d/60-glucobridge.rules"), 0o644)
        XCTAssertEqual(try String(contentsOfFile: staged("/etc/udev/rules.d/60-glucobridge.rules"), encoding: .utf8), SystemFile.udevRules.contents)
        let unit = try String(contentsOfFile: staged("/etc/systemd/system/glucobridge.service"), encoding: .utf8)
        XCTAssertEqual(SystemFile.execBinary(of: unit), "/opt/gb/bin/glucobridge")

        var doctor = Doctor(storePath: "/nonexistent/store.sqlite", environment: environment, installRoot: destdir)
        let installed = InstalledFiles(root: destdir, environment: environment)
        var findings = doctor.installFindings(installed)
        XCTAssertEqual(findings.filter { $0.status == .fail }, [], Doctor.render(findings))
        XCTAssertEqual(findings.map(\.subject), ["udev rules", "import unit", "binary", "daemon unit", "binary"])
        XCTAssertTrue(
            findings[0].message.hasSuffix("/etc/udev/rules.d/60-glucobridge.rules matches this glucobridge (\(GlucoBridgeVersion.current))"))
        XCTAssertEqual(
            findings[2].message, "/opt/gb/bin/glucobridge is glucobridge \(GlucoBridgeVersion.current)", "the staged binary answered --version")

        // An edited unit and rules from another release are told apart.
        try (unit + "Nice=5\n").write(toFile: staged("/etc/systemd/system/glucobridge.service"), atomically: true, encoding: .utf8)
        // The older rules also lack a reader this release's Contour driver reads.
        let older = SystemFile.udevRules.contents.replacingOccurrences(
            of: "# glucobridge \(GlucoBridgeVersion.current) ", with: "# glucobridge 0.0.9 "
        )
        .replacingOccurrences(of: #"ATTR{idProduct}=="6002|"#, with: #"ATTR{idProduct}==""#)
        try older.write(toFile: staged("/etc/udev/rules.d/60-glucobridge.rules"), atomically: true, encoding: .utf8)
        doctor.binaryPath = binary.path
        findings = doctor.installFindings(InstalledFiles(root: destdir, environment: environment))
        XCTAssertEqual(findings[0].status, .fail)
        XCTAssertEqual(
            findings[0].message,
            "/etc/udev/rules.d/60-glucobridge.rules was installed by glucobridge 0.0.9, this is \(GlucoBridgeVersion.current); "
                + "against this release's drivers: 1a79:6002 (contour) is missing")
        XCTAssertEqual(findings[0].fix, "sudo glucobridge install --system")
        let daemonUnit = try XCTUnwrap(findings.first { $0.subject == "daemon unit" })
        XCTAssertEqual(daemonUnit.message, "/etc/systemd/system/glucobridge.service differs from what this glucobridge installs (edited?)")

        XCTAssertTrue(runner.perform(InstallPlan.uninstall(layout)) { _ in })
        for path in [
            "/opt/gb/bin/glucobridge", "/etc/udev/rules.d/60-glucobridge.rules", "/etc/systemd/system/glucobridge.service",
            "/etc/systemd/system/glucobridge-import@.service", "/etc/sysusers.d/glucobridge.conf",
        ] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: staged(path)), path)
        }
        findings = doctor.installFindings(InstalledFiles(root: destdir, environment: environment))
        XCTAssertEqual(findings.map(\.status), [.fail, .fail])
        XCTAssertEqual(findings[0].message, "not installed: readers need root to open and are not imported when plugged in")
    }
}
