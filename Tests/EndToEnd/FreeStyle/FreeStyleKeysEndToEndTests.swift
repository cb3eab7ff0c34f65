import Drivers
import Foundation
import ImportTestSupport
import Simulators
import TestSupport
import TransportReplay
import XCTest

/// `glucobridge replay` of a Libre 2 recording, as a user runs it: the keys from the key file
/// `GLUCOBRIDGE_FREESTYLE_KEYS` names; without keys, an error that says how to get them, and no
/// store written.
final class FreeStyleKeysEndToEndTests: XCTestCase {
    func testReplayWithAndWithoutKeys() throws {
        let program = BuiltProducts.executable("glucobridge")
        guard FileManager.default.isExecutableFile(atPath: program.path) else { return XCTFail("\(program.path) is not built: swift build first") }
        let folder = try Fixtures.temporaryDirectory()
        let keys = FreeStyleTestKeys.keys
        let keyFile = folder.appendingPathComponent("freestyle-libre2.keys")
        try Data(
            """
            # made-up keys of the tests
            AUTHORIZATION_ENCRYPTION_KEY = 0x00112233445566778899aabbccddeeff
            AUTHORIZATION_MAC_KEY = 0x0f1e2d3c4b5a69788796a5b4c3d2e1f0
            SESSION_ENCRYPTION_KEY = 0x13579bdf02468ace13579bdf02468ace
            SESSION_MAC_KEY = 0xfedcba98765432100123456789abcdef
            """.utf8
        ).write(to: keyFile)
        let capture = folder.appendingPathComponent("libre2.pcap")
        let reader = FreeStyleDemo.encryptedReader(keys: keys)
        let recorder = try RecordingUSBTransport(recording: reader, to: capture, clock: reader.hostClock)
        _ = try FreeStyleDriver.readSession(over: recorder, keys: { () throws(FreeStyleError) in keys })
        try recorder.finish()

        var environment = ProcessInfo.processInfo.environment
        let store = folder.appendingPathComponent("store.sqlite")
        environment["GLUCOBRIDGE_FREESTYLE_KEYS"] = folder.appendingPathComponent("absent.keys").path
        let refused = try runProcess(program, ["replay", capture.path, "--store", store.path, "--tz", "Europe/Berlin"], environment: environment)
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("readers need keys, found in none of: \(folder.path)/absent.keys"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("pip install freestyle-keys"), refused.stderr)

        environment["GLUCOBRIDGE_FREESTYLE_KEYS"] = keyFile.path
        let replayed = try runProcess(program, ["replay", capture.path, "--store", store.path, "--tz", "Europe/Berlin"], environment: environment)
        XCTAssertEqual(replayed.status, 0, replayed.stderr)
        XCTAssertTrue(replayed.stdout.contains("by conversation replay"), replayed.stdout)
        XCTAssertTrue(replayed.stdout.contains("device: freestyle MAGA987-J0123 (FreeStyle Libre 2)"), replayed.stdout)
        XCTAssertTrue(replayed.stdout.contains("12 records read: 8 new, 0 already stored"), replayed.stdout)
    }
}
