import Foundation
import ImportTestSupport
import TestSupport
import TransportBlueZ
import XCTest

@testable import Setup

/// `doctor` run from the built binary on this machine.
final class DoctorEndToEndTests: XCTestCase {
    /// Here (no USB bus, no Bluetooth, nothing installed) doctor fails with a fix under every
    /// failure, exits 1, and never crashes.
    func testDoctorOnThisMachine() throws {
        let folder = try Fixtures.temporaryDirectory()
        let store = folder.appendingPathComponent("store.sqlite").path
        let environment = ["HOME": folder.path, "PATH": "/usr/bin:/bin"]
        let result = try runProcess(BuiltProducts.executable("glucobridge"), ["doctor", "--store", store], environment: environment)
        XCTAssertEqual(result.reason, .exit)
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertEqual(result.stderr, "", "no crash, no stack trace")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "glucobridge \(GlucoBridgeVersion.current) doctor")
        XCTAssertTrue(lines.contains("ok    store             \(store) does not exist yet; the first import creates it"), result.stdout)
        for (index, line) in lines.enumerated() where line.hasPrefix("FAIL") {
            XCTAssertTrue(lines[index + 1].hasPrefix("      fix: "), "no fix after: \(line)")
        }
        if !FileManager.default.fileExists(atPath: "/sys/bus/usb") {
            XCTAssertTrue(
                lines.contains {
                    $0.hasPrefix("FAIL  usb bus           this kernel has no USB support (/sys/bus/usb does not exist)")
                }, result.stdout)
        }
        if case .unavailable(let reason) = BluetoothProbe.check(), reason.contains("no Bluetooth support") {
            XCTAssertTrue(lines.contains { $0.hasPrefix("FAIL  bluetooth         this kernel has no Bluetooth support") }, result.stdout)
        }
        XCTAssertTrue(lines.contains("FAIL  udev rules        not installed: readers need root to open and are not imported when plugged in"))
        XCTAssertTrue(lines.contains("      fix: sudo glucobridge install --system (or glucobridge install --user)"))
        let failures = lines.filter { $0.hasPrefix("FAIL") }.count
        XCTAssertEqual(lines.last, "\(failures) problem\(failures == 1 ? "" : "s") found")
        XCTAssertGreaterThan(failures, 0)

        // `--json` is read by scripts: the same problems, the same exit status.
        let json = try runProcess(BuiltProducts.executable("glucobridge"), ["doctor", "--json", "--store", store], environment: environment)
        XCTAssertEqual(json.status, 1, json.stdout + json.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let findings = try XCTUnwrap(object["findings"] as? [[String: Any]])
        XCTAssertEqual(findings.filter { $0["status"] as? String == "fail" }.count, failures)
    }
}
