import Foundation
import TestSupport
import XCTest

@testable import Setup

/// `install` and `uninstall`: the plan, `--dry-run` from the built binary, and a real install
/// staged under a temporary `--destdir` that `doctor` then recognises.
final class InstallTests: XCTestCase {
    let environment = ["HOME": "/home/ana", "PATH": "/usr/bin"]

    func testSystemPlan() throws {
        let layout = try InstallLayout(mode: .system, prefix: nil, environment: environment)
        let steps = InstallPlan.install(layout, binarySource: "/build/glucobridge").map(\.description)
        XCTAssertEqual(steps, [
            "copy /build/glucobridge to /usr/local/bin/glucobridge (mode 0755)",
            "write /etc/sysusers.d/glucobridge.conf (mode 0644) from systemd/glucobridge.sysusers",
            "run systemd-sysusers /etc/sysusers.d/glucobridge.conf",
            "write /etc/systemd/system/glucobridge-import@.service (mode 0644) from systemd/glucobridge-import@.service",
            "write /etc/systemd/system/glucobridge.service (mode 0644) from systemd/glucobridge.service",
            "write /etc/udev/rules.d/60-glucobridge.rules (mode 0644) from udev/60-glucobridge.rules",
            "run udevadm control --reload",
            "run udevadm trigger --action=change --subsystem-match=usb --subsystem-match=tty",
            "run systemctl daemon-reload",
            "run systemctl enable --now glucobridge.service",
            "note: readers plugged in from now on are imported into /var/lib/glucobridge/store.sqlite; "
                + "to let a user's app read and write it: sudo usermod -aG glucobridge USER",
        ])
        XCTAssertEqual(InstallPlan.uninstall(layout).map(\.description), [
            "run systemctl disable --now glucobridge.service",
            "remove /etc/systemd/system/glucobridge-import@.service",
            "remove /etc/systemd/system/glucobridge.service",
            "remove /etc/udev/rules.d/60-glucobridge.rules",
            "remove /etc/sysusers.d/glucobridge.conf",
            "remove /usr/local/bin/glucobridge",
            "run systemctl daemon-reload",
            "run udevadm control --reload",
            "note: the store in /var/lib/glucobridge and the account glucobridge are kept; remove them with "
                + "sudo rm -r /var/lib/glucobridge && sudo userdel glucobridge when they are no longer wanted",
        ])
    }

    func testUserPlan() throws {
        let layout = try InstallLayout(mode: .user, prefix: nil, environment: environment)
        let steps = InstallPlan.install(layout, binarySource: "/build/glucobridge")
        XCTAssertEqual(steps.map(\.description).prefix(6), [
            "copy /build/glucobridge to /home/ana/.local/bin/glucobridge (mode 0755)",
            "create folder /home/ana/.local/share/glucobridge/spool",
            "write /home/ana/.config/systemd/user/glucobridge.service (mode 0644) from systemd/user/glucobridge.service",
            "write /home/ana/.local/share/glucobridge/60-glucobridge.rules (mode 0644) from udev/60-glucobridge.rules",
            "run systemctl --user daemon-reload",
            "run systemctl --user enable --now glucobridge.service",
        ])
        guard case let .write(_, _, text) = steps[2] else { return XCTFail("the unit is written third") }
        XCTAssertEqual(text, SystemFile.userDaemonUnit.contents, "the default prefix keeps %h/.local/bin")
        XCTAssertTrue(steps.last?.description.contains("sudo install -m 0644 /home/ana/.local/share/glucobridge/60-glucobridge.rules /etc/udev/rules.d/") == true)
    }

    func testPrefixGoesIntoExecStartOnly() throws {
        let layout = try InstallLayout(mode: .system, prefix: "/opt/gb/", environment: environment)
        XCTAssertEqual(layout.binary, "/opt/gb/bin/glucobridge")
        for case let .write(file, _, text) in InstallPlan.install(layout, binarySource: "/build/glucobridge") where file != .udevRules && file != .sysusers {
            XCTAssertEqual(SystemFile.execBinary(of: text), "/opt/gb/bin/glucobridge")
            XCTAssertEqual(text.replacingOccurrences(of: "/opt/gb/bin/glucobridge", with: "/usr/local/bin/glucobridge"), file.contents)
        }
        let user = try InstallLayout(mode: .user, prefix: "/home/ana/apps", environment: environment)
        XCTAssertEqual(SystemFile.execBinary(of: SystemFile.userDaemonUnit.rendered(binaryPath: user.execBinary)), "/home/ana/apps/bin/glucobridge")
    }

    func testUnusablePrefixesAreRefused() {
        for (prefix, reason) in [("opt/gb", "absolute"), ("/opt/my apps", "\" \""), ("/opt/%h", "\"%\""), ("/opt/$x", "\"$\"")] {
            XCTAssertThrowsError(try InstallLayout(mode: .system, prefix: prefix, environment: environment)) { error in
                XCTAssertTrue("\(error)".hasPrefix("cannot use the prefix \(prefix): "), "\(error)")
                XCTAssertTrue("\(error)".contains(reason), "\(error)")
            }
        }
    }

    /// The built binary prints the plan and changes nothing.
    func testDryRunFromTheBuiltBinary() throws {
        let folder = try Fixtures.temporaryDirectory()
        let prefix = folder.appendingPathComponent("prefix").path
        let binary = BuiltProducts.executable("glucobridge")
        let result = try runProcess(binary, ["install", "--system", "--prefix", prefix, "--dry-run"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "install glucobridge \(GlucoBridgeVersion.current) for the system, prefix \(prefix) (dry run: nothing is changed)")
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
        XCTAssertTrue(findings[0].message.hasSuffix("/etc/udev/rules.d/60-glucobridge.rules matches this glucobridge (\(GlucoBridgeVersion.current))"))
        XCTAssertEqual(findings[2].message, "/opt/gb/bin/glucobridge is glucobridge \(GlucoBridgeVersion.current)", "the staged binary answered --version")

        // An edited unit and rules from another release are told apart.
        try (unit + "Nice=5\n").write(toFile: staged("/etc/systemd/system/glucobridge.service"), atomically: true, encoding: .utf8)
        // The older rules also lack a reader this release's Contour driver reads.
        let older = SystemFile.udevRules.contents.replacingOccurrences(of: "# glucobridge \(GlucoBridgeVersion.current) ", with: "# glucobridge 0.0.9 ")
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
        for path in ["/opt/gb/bin/glucobridge", "/etc/udev/rules.d/60-glucobridge.rules", "/etc/systemd/system/glucobridge.service",
                     "/etc/systemd/system/glucobridge-import@.service", "/etc/sysusers.d/glucobridge.conf"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: staged(path)), path)
        }
        findings = doctor.installFindings(InstalledFiles(root: destdir, environment: environment))
        XCTAssertEqual(findings.map(\.status), [.fail, .fail])
        XCTAssertEqual(findings[0].message, "not installed: readers need root to open and are not imported when plugged in")
    }

    /// A step that fails stops the run with a reason, and later steps are not done.
    func testFailedStepStopsTheRun() throws {
        let folder = try Fixtures.temporaryDirectory()
        let blocker = folder.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        let runner = InstallRunner(dryRun: false, destdir: nil, environment: [:])
        var printed: [String] = []
        let steps: [InstallAction] = [
            .write(.udevRules, to: blocker.path + "/inside/60-glucobridge.rules", text: "x"),
            .makeFolder(folder.appendingPathComponent("never").path),
        ]
        XCTAssertFalse(runner.perform(steps) { printed.append($0) })
        XCTAssertEqual(printed.count, 2, "\(printed)")
        XCTAssertTrue(printed[1].hasPrefix("  failed: \(blocker.path)/inside/60-glucobridge.rules: "), printed[1])
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("never").path))

        XCTAssertFalse(runner.perform([.run(["glucobridge-no-such-command"], required: true)]) { printed.append($0) })
        XCTAssertEqual(printed.last, "  failed: glucobridge-no-such-command is not installed or not in PATH")
        XCTAssertTrue(runner.perform([.run(["false"], required: false)]) { printed.append($0) }, "an optional step may fail")
        XCTAssertEqual(printed.last, "  failed, continuing: `false` failed (exit status 1)")
    }
}
