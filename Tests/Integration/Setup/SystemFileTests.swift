import Drivers
import Foundation
import ImportTestSupport
import TestSupport
import XCTest

@testable import Setup

/// The udev rules and systemd units: what the binary embeds is what the repository holds, and
/// what they say is what the issue asks.
final class SystemFileTests: XCTestCase {
    func testEmbeddedFilesAreTheRepositoryFiles() throws {
        for file in SystemFile.allCases {
            let onDisk = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent(file.repositoryPath), encoding: .utf8)
            XCTAssertEqual(file.contents, onDisk, "\(file.repositoryPath) differs from what the binary embeds")
            XCTAssertEqual(SystemFile.headerVersion(of: onDisk), GlucoBridgeVersion.current, "\(file.repositoryPath) header names another release")
        }
    }

    // MARK: udev rules

    /// The rules mark exactly the registry's USB products, each with its driver: a product added
    /// to a driver, or a line added to the rules, fails here until the other side follows.
    func testRulesListExactlyTheRegistrysReaders() {
        XCTAssertEqual(UdevRules.drift(in: SystemFile.udevRules.contents), [], "udev/60-glucobridge.rules and DriverRegistry.usb differ")
        let listed = UdevRules.readers(in: SystemFile.udevRules.contents)
        XCTAssertEqual(listed, UdevRules.expectedReaders)
        XCTAssertEqual(listed.count, DriverRegistry.usbProducts.count)
        XCTAssertEqual(listed[USBID(vendor: 0x22A3, product: 0x0047)], "dexcom")
        XCTAssertEqual(listed[USBID(vendor: 0x1A79, product: 0x7410)], "contour")
        XCTAssertEqual(listed[USBID(vendor: 0x1A61, product: 0x3650)], "freestyle")
        XCTAssertNil(listed[USBID(vendor: 0x22A3, product: 0x0048)], "the G7 is not supported, so not in the rules")
    }

    /// The drift check names each kind of difference.
    func testDriftNamesMissingExtraAndMisassignedReaders() {
        let rules = SystemFile.udevRules.contents
            .replacingOccurrences(of: #"ATTR{idProduct}=="6002|"#, with: #"ATTR{idProduct}==""#)
            .replacingOccurrences(
                of: #"ATTR{idProduct}=="0047", ENV{ID_MM_DEVICE_IGNORE}="1", ENV{GLUCOBRIDGE_DRIVER}="dexcom""#,
                with: #"ATTR{idProduct}=="0047|0048", ENV{ID_MM_DEVICE_IGNORE}="1", ENV{GLUCOBRIDGE_DRIVER}="contour""#)
        XCTAssertEqual(
            UdevRules.drift(in: rules),
            [
                "1a79:6002 (contour) is missing",
                "22a3:0047 is given to driver contour, but the dexcom driver reads it",
                "22a3:0048 (contour) is listed, but no driver supports it",
            ])
    }

    func testRulesNeverOpenReadersToEveryone() {
        let modes = UdevRules.modes(in: SystemFile.udevRules.contents)
        XCTAssertEqual(modes, ["0660"])
        XCTAssertFalse(modes.contains(where: UdevRules.grantsOthers))
        XCTAssertFalse(UdevRules.ruleLines(SystemFile.udevRules.contents).contains { $0.contains("0666") })
    }

    /// The checks above would catch a world-writable rule.
    func testModeCheckCatchesWorldAccess() {
        let bad = """
            # MODE="0666" in a comment is not a rule
            SUBSYSTEM=="usb", ATTR{idVendor}=="22a3", MODE="0666"
            SUBSYSTEM=="usb", ATTR{idVendor}=="1a79", MODE:="0664", GROUP="plugdev"
            """
        XCTAssertEqual(UdevRules.modes(in: bad), ["0666", "0664"])
        XCTAssertEqual(UdevRules.modes(in: bad).filter(UdevRules.grantsOthers), ["0666", "0664"])
        XCTAssertFalse(UdevRules.grantsOthers(mode: "0660"))
        XCTAssertTrue(UdevRules.grantsOthers(mode: "rw"), "an unreadable mode counts as unsafe")
    }

    func testRulesGrantAccessAndStartTheImportService() throws {
        let lines = UdevRules.ruleLines(SystemFile.udevRules.contents)
        let access = try XCTUnwrap(lines.first { $0.contains("MODE=") })
        for part in [#"GROUP="plugdev""#, #"TAG+="uaccess""#, #"TAG+="systemd""#] {
            XCTAssertTrue(access.contains(part), "the access rule lacks \(part)")
        }
        let wants = try XCTUnwrap(lines.first { $0.contains("SYSTEMD_WANTS") })
        XCTAssertTrue(wants.contains(#"ENV{SYSTEMD_WANTS}+="glucobridge-import@$env{BUSNUM}-$env{DEVNUM}.service""#), String(wants))
        // On every event but removal (which the rules skip at their top): a property set on "add"
        // alone is lost from udev's database at the "bind" event that follows; systemd starts the
        // unit only when the device first becomes active.
        XCTAssertFalse(wants.contains("ACTION"), String(wants))
        let removal = try XCTUnwrap(lines.first { $0.contains(#"ACTION=="remove""#) })
        XCTAssertTrue(removal.contains(#"GOTO="glucobridge_end""#), String(removal))
        // Only when the system unit is installed where `install --system` puts it, or where the
        // Debian package does.
        XCTAssertTrue(wants.hasPrefix(#"ENV{GLUCOBRIDGE_IMPORT_UNIT}=="1""#), String(wants))
        for prefix in [nil, "/usr"] {
            let layout = try InstallLayout(mode: .system, prefix: prefix, environment: [:])
            let test = #"TEST=="\#(layout.unitFolder)/\#(SystemFile.importUnit.installedName)", ENV{GLUCOBRIDGE_IMPORT_UNIT}="1""#
            XCTAssertTrue(lines.contains { $0 == test }, "no rule marks the unit at \(layout.unitFolder)")
        }
    }

    func testModemManagerKeepsOffTheDexcom() {
        let lines = UdevRules.ruleLines(SystemFile.udevRules.contents)
        let dexcomLines = lines.filter { $0.contains(#"idVendor}=="22a3""#) }
        XCTAssertEqual(dexcomLines.count, 2, "the tty and the USB device")
        for line in dexcomLines {
            XCTAssertTrue(line.contains(#"ENV{ID_MM_DEVICE_IGNORE}="1""#), String(line))
        }
        XCTAssertTrue(dexcomLines.contains { $0.hasPrefix(#"SUBSYSTEM=="tty""#) })
    }

    // MARK: systemd units

    func testImportService() throws {
        let unit = UnitFile(SystemFile.importUnit.contents)
        XCTAssertEqual(unit["Unit", "BindsTo"], ["dev-bus-usb-%i.device"], "the import stops when the reader is unplugged")
        XCTAssertEqual(unit["Service", "Type"], ["oneshot"])
        XCTAssertEqual(unit["Service", "User"], ["glucobridge"])
        let exec = try XCTUnwrap(unit["Service", "ExecStart"].first)
        XCTAssertTrue(exec.hasPrefix("/usr/local/bin/glucobridge import --device /dev/bus/usb/%I "), exec)
        XCTAssertEqual(Self.storeArgument(exec), "/var/lib/glucobridge/store.sqlite")
        try assertHardened(unit, writable: "/var/lib/glucobridge")
        XCTAssertEqual(unit["Service", "CapabilityBoundingSet"], [""], "the import needs no capability")
        XCTAssertEqual(unit["Service", "AmbientCapabilities"], [""])
        XCTAssertEqual(unit["Service", "DeviceAllow"], ["/dev/bus/usb/%I rw"], "the one reader's node, nothing else")
        XCTAssertEqual(unit["Service", "PrivateNetwork"], ["yes"])
        XCTAssertEqual(unit["Service", "RestrictAddressFamilies"], ["AF_UNIX AF_NETLINK"])
    }

    func testDaemonService() throws {
        let unit = UnitFile(SystemFile.daemonUnit.contents)
        XCTAssertEqual(unit["Service", "User"], ["glucobridge"])
        let exec = try XCTUnwrap(unit["Service", "ExecStart"].first)
        XCTAssertTrue(exec.hasPrefix("/usr/local/bin/glucobridge daemon --spool /var/lib/glucobridge/spool "), exec)
        XCTAssertTrue(exec.hasSuffix(" --no-usb-hotplug"), "udev starts the import unit; the daemon must not race it")
        XCTAssertEqual(Self.storeArgument(exec), "/var/lib/glucobridge/store.sqlite")
        try assertHardened(unit, writable: "/var/lib/glucobridge")
        XCTAssertEqual(unit["Service", "CapabilityBoundingSet"], [""], "L2CAP sockets need no capability")
        XCTAssertEqual(unit["Service", "AmbientCapabilities"], [""])
        XCTAssertEqual(unit["Service", "RestrictAddressFamilies"], ["AF_UNIX AF_NETLINK AF_BLUETOOTH"])
        XCTAssertEqual(unit["Service", "PrivateDevices"], ["yes"], "USB readers are the import unit's")
        XCTAssertTrue(unit["Service", "PrivateNetwork"].isEmpty, "Bluetooth sockets exist only in the host's network namespace")
        XCTAssertEqual(unit["Install", "WantedBy"], ["multi-user.target"])
    }

    func testUserDaemonService() throws {
        let unit = UnitFile(SystemFile.userDaemonUnit.contents)
        XCTAssertTrue(unit["Service", "User"].isEmpty, "a user unit runs as its user")
        let exec = try XCTUnwrap(unit["Service", "ExecStart"].first)
        XCTAssertTrue(exec.hasPrefix("%h/.local/bin/glucobridge daemon --spool %h/.local/share/glucobridge/spool "), exec)
        XCTAssertFalse(exec.contains("--no-usb-hotplug"), "without root, the daemon's hotplug is what imports readers")
        XCTAssertEqual(Self.storeArgument(exec), "%h/.local/share/glucobridge/store.sqlite")
        XCTAssertEqual(unit["Service", "NoNewPrivileges"], ["yes"])
        for option in ["ProtectSystem", "ReadWritePaths", "PrivateTmp", "PrivateUsers"] {
            XCTAssertTrue(
                unit["Service", option].isEmpty, "\(option) implies a user namespace in a user manager, where older libudev ignores hotplug events")
        }
        XCTAssertEqual(unit["Service", "CapabilityBoundingSet"], [""])
        XCTAssertTrue(unit["Service", "AmbientCapabilities"].isEmpty)
        XCTAssertEqual(unit["Install", "WantedBy"], ["default.target"])
    }

    func testServiceAccountIsInPlugdev() {
        let lines = SystemFile.sysusers.contents.split(separator: "\n").filter { !$0.hasPrefix("#") }
        XCTAssertEqual(lines, [#"u glucobridge - "glucobridge importer" /var/lib/glucobridge"#, "m glucobridge plugdev"])
    }

    /// NoNewPrivileges, ProtectSystem=strict, PrivateTmp, the store's folder as the only writable
    /// path, no IP address, no other user's processes, and an ordinary service's system calls.
    /// (`.ci/verify-system-files` scores the whole with `systemd-analyze security`; the lab's
    /// `systemd` scenario runs the units so.)
    private func assertHardened(_ unit: UnitFile, writable: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(unit["Service", "NoNewPrivileges"], ["yes"], file: file, line: line)
        XCTAssertEqual(unit["Service", "ProtectSystem"], ["strict"], file: file, line: line)
        XCTAssertEqual(unit["Service", "StateDirectory"], ["glucobridge"], file: file, line: line)
        XCTAssertEqual(unit["Service", "PrivateTmp"], ["yes"], file: file, line: line)
        XCTAssertEqual(unit["Service", "ReadWritePaths"], [writable], file: file, line: line)
        XCTAssertEqual(unit["Service", "IPAddressDeny"], ["any"], file: file, line: line)
        XCTAssertEqual(unit["Service", "ProtectProc"], ["invisible"], file: file, line: line)
        XCTAssertEqual(unit["Service", "PrivateUsers"], ["yes"], file: file, line: line)
        XCTAssertEqual(unit["Service", "DevicePolicy"], ["closed"], file: file, line: line)
        XCTAssertEqual(unit["Service", "SystemCallFilter"], ["@system-service", "~@privileged @resources", "setpriority"], file: file, line: line)
    }

    /// The value of `--store` in an `ExecStart=` line.
    static func storeArgument(_ exec: String) -> String? {
        let words = exec.split(separator: " ").map(String.init)
        return words.firstIndex(of: "--store").flatMap { words.indices.contains($0 + 1) ? words[$0 + 1] : nil }
    }
}

/// A unit file's assignments per section, in order (a key given several times keeps every value).
struct UnitFile {
    private var values: [String: [String: [String]]] = [:]

    init(_ text: String) {
        var section = ""
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[section, default: [:]][String(line[..<equals]), default: []].append(String(line[line.index(after: equals)...]))
        }
    }

    subscript(section: String, key: String) -> [String] { values[section]?[key] ?? [] }
}
