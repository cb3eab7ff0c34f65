import ArgumentParser
import CaptureBluetooth
import Foundation
import ImportTestSupport
import Importer
import LiveImport
import Model
import Store
import TestSupport
import Transport
import XCTest

@testable import glucobridge

#if canImport(Glibc)
    import Glibc
#endif

/// `glucobridge replay CAPTURE.btsnoop` and `glucobridge import --ble ADDRESS`: the report lines,
/// the options, and the one-line failure on this machine (no Bluetooth in the kernel).
final class BLEImportCommandTests: XCTestCase {
    func store(_ zone: String) throws -> SharedStore {
        let folder = try Fixtures.temporaryDirectory()
        return try SharedStore(path: folder.appendingPathComponent("s.sqlite").path, timeZone: TimeZone(identifier: zone)!)
    }

    func testWalkReport() throws {
        let store = try store("America/Los_Angeles")
        try store.setUserProfile(UserProfile(age: 40))
        let fixture = Fixtures.url("ble/hr-40min-walk.btsnoop")
        let text = ImportReport(try Importer(store: store).run(.capture(fixture)), store: store).text
        XCTAssertEqual(
            text,
            """
            replayed \(fixture.path) (btsnoop) by conversation replay
            device: C0:FF:EE:00:00:01, random; serial SIM-HR-0001; glucobridge simulator HR band
            services: Generic Access (0x1800), Device Information (0x180A), Heart Rate (0x180D)
            activity (ble:SIM-HR-0001 via ble-hrs): 3000 samples; 51 minutes: 51 new, 0 already stored; exercise sessions: 1 new, 0 already stored
            exercise: 2024-05-01 23:00 (America/Los_Angeles) Activity 40 min moderate
            exercise days: 2024-05-01 (1 day in America/Los_Angeles)
            note: heart rate sensor worn: chest
            session ended: the device disconnected (remote user terminated connection, hr-40min-walk.btsnoop record 3032)
            store: \(store.path)
            """)
        let again = ImportReport(try Importer(store: store).run(.capture(fixture)), store: store).text
        XCTAssertTrue(
            again.contains("51 minutes: 0 new, 51 already stored; exercise sessions: 0 new, 1 already stored"), again)
    }

    /// Without an age or maximum heart rate the minutes are kept and the report says why no session was made.
    func testWalkReportWithoutProfileSaysWhyNoSession() throws {
        let store = try store("America/Los_Angeles")
        let text = ImportReport(
            try Importer(store: store).run(.capture(Fixtures.url("ble/hr-40min-walk.btsnoop"))), store: store
        ).text
        XCTAssertTrue(text.contains("51 minutes: 51 new, 0 already stored; exercise sessions: 0 new, 0 already stored"), text)
        XCTAssertTrue(
            text.contains("note: heart rate was not used for intensity: the profile has no age or maximum heart rate"), text)
    }

    func testCGMReport() throws {
        let store = try store("Europe/Berlin")
        let capture = Fixtures.url("ble/synthetic/synthetic-hrs-cgms-android-h4.btsnoop")
        let lines = ImportReport(try Importer(store: store).run(.capture(capture)), store: store).text
            .split(separator: "\n").map(String.init)
        XCTAssertTrue(
            lines.contains(
                "cgm (ble-cgms:C0:11:22:33:44:55): 7 records read: 6 readings new, 0 already stored; CRC failures: 0; special values: nan 1"),
            "\(lines)")
        XCTAssertTrue(lines.contains("readings: 2024-01-15 07:10 to 2024-01-15 08:03 (Europe/Berlin)"), "\(lines)")
        XCTAssertTrue(lines.contains("days: 2024-01-15 (1 day in Europe/Berlin)"))
        XCTAssertTrue(
            lines.contains(
                "activity (ble:C0:11:22:33:44:55 via ble-hrs): 7 samples; 1 minute: 1 new, 0 already stored; exercise sessions: 0 new, 0 already stored"
            ))
        XCTAssertTrue(lines.contains("samples left out: heart-rate-without-contact 1"))
        XCTAssertTrue(lines.contains("note: Continuous Glucose Monitoring: the device holds 2 stored records for filter 01"))
    }

    func testTreadmillReport() throws {
        let store = try store("UTC")
        let capture = Fixtures.url("ble/horizon-74-at-ble/btsnoop_hci.log")
        let lines = ImportReport(try Importer(store: store).run(.capture(capture)), store: store).text
            .split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines[0],
            "replayed \(capture.path) (btsnoop) by passive replay (the capture does not hold the request 02 41 00 (searched after record 0))")
        XCTAssertEqual(lines[2], "services: Generic Attribute (0x1801), Generic Access (0x1800), 0xFFF0, Fitness Machine (0x1826), 0xFEE7")
        XCTAssertTrue(lines.contains("notifications no driver reads: 261 on handle 0x0012, 786 on 0xFFF4 (handle 0x0014)"), "\(lines)")
        XCTAssertTrue(lines.contains("nothing stored: the session held no readings or activity glucobridge decodes"))
    }

    /// `import --ble ADDRESS[,random|public]`, and the old `--address-type`, which still works and
    /// names the new form in a hint.
    func testOptions() throws {
        let publicPeer = BLEPeer(address: BluetoothAddress("C0:11:22:33:44:55")!, addressType: .public)
        let command = try ImportCommand.parse(["--ble", "c0:11:22:33:44:55,public", "--minutes", "90"])
        XCTAssertEqual(try command.bluetooth.peer(), publicPeer)
        XCTAssertNil(command.bluetooth.oldFormHint())
        XCTAssertEqual(command.bluetooth.minutes, 90)
        XCTAssertEqual(try ImportCommand.parse(["--ble", "C0:11:22:33:44:55"]).bluetooth.peer()?.addressType, .random)
        XCTAssertNil(try ImportCommand.parse([]).bluetooth.peer())

        let old = try ImportCommand.parse(["--ble", "c0:11:22:33:44:55", "--address-type", "public"])
        XCTAssertEqual(try old.bluetooth.peer(), publicPeer)
        XCTAssertEqual(
            old.bluetooth.oldFormHint(), "hint: --ble c0:11:22:33:44:55 --address-type public still works; write it as --ble C0:11:22:33:44:55,public"
        )

        func message(_ arguments: [String]) -> String {
            do {
                _ = try ImportCommand.parse(arguments)
                return "parsed"
            } catch {
                return ImportCommand.message(for: error)
            }
        }
        XCTAssertEqual(
            message(["--ble", "C0:11:22"]), #"--ble "C0:11:22": "C0:11:22" is not a Bluetooth address (six hex pairs: C0:11:22:33:44:55)"#)
        XCTAssertEqual(
            message(["--ble", "C0:11:22:33:44:55", "--address-type", "static"]),
            #""--address-type static": the address type is public or random, not "static""#)
        XCTAssertEqual(
            message(["--ble", "C0:11:22:33:44:55,random", "--address-type", "public"]),
            "--ble C0:11:22:33:44:55,random names its address type already: leave out --address-type public")
        XCTAssertThrowsError(try ImportCommand.parse(["--address-type", "public"]), "--address-type needs --ble")
        XCTAssertThrowsError(try ImportCommand.parse(["--ble", "C0:11:22:33:44:55", "--minutes", "0"]))
    }

    /// `daemon --ble ADDRESS[,random|public]`, repeatable, with its interval and listen time.
    func testDaemonSensorOptions() throws {
        let command = try DaemonCommand.parse(["--ble", "c0:11:22:33:44:55,public", "--ble", "C0:FF:EE:00:00:01", "--ble-interval", "30"])
        XCTAssertEqual(
            try command.peers(),
            [
                BLEPeer(address: BluetoothAddress("C0:11:22:33:44:55")!, addressType: .public),
                BLEPeer(address: BluetoothAddress("C0:FF:EE:00:00:01")!, addressType: .random),
            ])
        XCTAssertEqual(command.bleInterval, 30)
        XCTAssertEqual(try DaemonCommand.parse([]).bleInterval, 15, "the default interval")
        XCTAssertEqual(try DaemonCommand.parse([]).bleListen, 1)
        XCTAssertEqual(try DaemonCommand.parse([]).peers(), [])
        XCTAssertThrowsError(try DaemonCommand.parse(["--ble", "C0:11:22"]))
        XCTAssertThrowsError(try DaemonCommand.parse(["--ble", "C0:11:22:33:44:55,static"])) {
            XCTAssertEqual(DaemonCommand.message(for: $0), #"--ble "C0:11:22:33:44:55,static": the address type is public or random, not "static""#)
        }
        XCTAssertThrowsError(try DaemonCommand.parse(["--ble", "C0:11:22:33:44:55", "--ble-interval", "0"]))
        XCTAssertThrowsError(try DaemonCommand.parse(["--ble", "C0:11:22:33:44:55", "--ble-interval", "5", "--ble-listen", "5"]))
    }

    /// The drop-in docs/operating.md shows for adding a sensor to the system daemon is a valid command.
    func testReadmeDropInParses() throws {
        let readme = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/operating.md"), encoding: .utf8)
        let line = try XCTUnwrap(
            readme.split(separator: "\n").first { $0.hasPrefix("ExecStart=/usr/local/bin/glucobridge daemon ") && $0.contains("--ble") })
        let arguments = line.split(separator: " ").dropFirst(2).map(String.init)
        let command = try DaemonCommand.parse(arguments)
        XCTAssertEqual(try command.peers(), [BLEPeer(address: BluetoothAddress("C0:11:22:33:44:55")!, addressType: .random)])
        XCTAssertFalse(command.usbHotplug)
    }

    /// The live import fails with one line (the built binary's run is in EndToEndTests).
    func testImportBLEFailsWithOneLineHere() throws {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_SEQPACKET.rawValue), 1)
        let code = errno
        if fd >= 0 { _ = close(fd) }
        guard fd < 0, code == EAFNOSUPPORT else { throw XCTSkip("this machine has Bluetooth; connecting would use a real radio") }

        let store = try store("UTC")
        XCTAssertThrowsError(
            try Importer(store: store).run(.bluetooth(BlueZPeer(BLEPeer(address: BluetoothAddress("C0:11:22:33:44:55")!, addressType: .random))))
        ) {
            XCTAssertEqual("\($0)", "this kernel has no Bluetooth support (socket: Address family not supported by protocol)")
        }
    }
}
