import Foundation
import ImportTestSupport
import TestSupport
import XCTest

@testable import Setup

/// `install` and `uninstall`: the plan and a failed step (the built binary's runs are in
/// EndToEndTests).
final class InstallTests: XCTestCase {
    let environment = ["HOME": "/home/ana", "PATH": "/usr/bin"]

    func testSystemPlan() throws {
        let layout = try InstallLayout(mode: .system, prefix: nil, environment: environment)
        let steps = InstallPlan.install(layout, binarySource: "/build/glucobridge").map(\.description)
        XCTAssertEqual(
            steps,
            [
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
        XCTAssertEqual(
            InstallPlan.uninstall(layout).map(\.description),
            [
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

    /// With the prefix `/usr`, as the Debian package is staged, the system files go where a
    /// distribution puts them, leaving /etc to the administrator.
    func testDistributionLayout() throws {
        let layout = try InstallLayout(mode: .system, prefix: "/usr", environment: environment)
        XCTAssertTrue(layout.isDistributionLayout)
        let writes = InstallPlan.install(layout, binarySource: "/build/glucobridge").compactMap { step -> String? in
            if case .write(_, let path, _) = step { return path }
            if case .copyBinary(_, let path) = step { return path }
            return nil
        }
        XCTAssertEqual(
            writes,
            [
                "/usr/bin/glucobridge", "/usr/lib/sysusers.d/glucobridge.conf", "/usr/lib/systemd/system/glucobridge-import@.service",
                "/usr/lib/systemd/system/glucobridge.service", "/usr/lib/udev/rules.d/60-glucobridge.rules",
            ])
        let units = InstallPlan.install(layout, binarySource: "/build/glucobridge").compactMap { step -> String? in
            if case .write(let file, _, let text) = step, file == .importUnit { return text }
            return nil
        }
        XCTAssertTrue(units.first?.contains("ExecStart=/usr/bin/glucobridge import --device /dev/bus/usb/%I") == true, units.first ?? "")
        for prefix in ["/usr/local", "/opt/glucobridge"] {
            XCTAssertFalse(try InstallLayout(mode: .system, prefix: prefix, environment: environment).isDistributionLayout, prefix)
        }
        XCTAssertFalse(try InstallLayout(mode: .user, prefix: "/usr", environment: environment).isDistributionLayout)
    }

    func testUserPlan() throws {
        let layout = try InstallLayout(mode: .user, prefix: nil, environment: environment)
        let steps = InstallPlan.install(layout, binarySource: "/build/glucobridge")
        XCTAssertEqual(
            steps.map(\.description).prefix(6),
            [
                "copy /build/glucobridge to /home/ana/.local/bin/glucobridge (mode 0755)",
                "create folder /home/ana/.local/share/glucobridge/spool",
                "write /home/ana/.config/systemd/user/glucobridge.service (mode 0644) from systemd/user/glucobridge.service",
                "write /home/ana/.local/share/glucobridge/60-glucobridge.rules (mode 0644) from udev/60-glucobridge.rules",
                "run systemctl --user daemon-reload",
                "run systemctl --user enable --now glucobridge.service",
            ])
        guard case .write(_, _, let text) = steps[2] else { return XCTFail("the unit is written third") }
        XCTAssertEqual(text, SystemFile.userDaemonUnit.contents, "the default prefix keeps %h/.local/bin")
        XCTAssertTrue(
            steps.last?.description.contains("sudo install -m 0644 /home/ana/.local/share/glucobridge/60-glucobridge.rules /etc/udev/rules.d/")
                == true)
    }

    func testPrefixGoesIntoExecStartOnly() throws {
        let layout = try InstallLayout(mode: .system, prefix: "/opt/gb/", environment: environment)
        XCTAssertEqual(layout.binary, "/opt/gb/bin/glucobridge")
        for case .write(let file, _, let text) in InstallPlan.install(layout, binarySource: "/build/glucobridge")
        where file != .udevRules && file != .sysusers {
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
