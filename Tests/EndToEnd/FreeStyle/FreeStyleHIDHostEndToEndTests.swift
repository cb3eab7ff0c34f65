import CaptureUSB
import Drivers
import Foundation
import GRDB
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import XCTest

/// freestyle-hid (PyPI, Apache-2.0), a host no one here wrote, logs in to the simulated Libre 2
/// reader (`glucobridge-simulator`, its reports on a pipe) and reads its records: the simulator
/// speaks the protocol as freestyle-hid does. The simulator's recording of that session then
/// replays through glucobridge, which decodes another host's session passively.
final class FreeStyleHIDHostEndToEndTests: XCTestCase {
    struct HostResult: Decodable {
        var serial: String
        var history: [[String]]
        var arresult: [[String]]
    }

    func testFreestyleHIDReadsTheSimulatedLibre2() throws {
        _ = try FreeStyleOracle.run("", needing: ["freestyle_hid", "freestyle_keys"])
        let simulator = BuiltProducts.executable("glucobridge-simulator")
        guard FileManager.default.isExecutableFile(atPath: simulator.path) else {
            return XCTFail("\(simulator.path) is not built: swift build first")
        }
        let folder = try Fixtures.temporaryDirectory()
        let records = folder.appendingPathComponent("records.json")
        try JSONEncoder().encode([
            "history": FreeStyleDemo.history, "arresult": FreeStyleDemo.arresult,
        ]).write(to: records)
        let capture = folder.appendingPathComponent("freestyle-hid.pcap")
        // freestyle-hid opens a device through its HidWrapper: given one whose reads and writes
        // are the simulator's stdout and stdin, it holds its whole session with it.
        let script = """
            import json, subprocess
            from freestyle_hid import _session, _hidwrapper
            simulator = subprocess.Popen(
                [\(pythonString(simulator.path)), "freestyle", "--model", "libre2", "--records", \(pythonString(records.path)),
                 "--record", \(pythonString(capture.path)), "--random"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE)

            class Pipe:
                def write(self, report):
                    # hidraw's convention: the report number first (0: the reader numbers none).
                    assert report[0] == 0 and len(report) == 65
                    simulator.stdin.write(bytes(report[1:]))
                    simulator.stdin.flush()
                    return len(report)

            class PipeDevice(_hidwrapper.HidWrapper):
                def __init__(self):
                    self._handle = Pipe()
                def read(self, size=64):
                    return simulator.stdout.read(size)

            _session.HidWrapper.open = staticmethod(lambda path, vendor, product: PipeDevice())
            # As glucometerutils' fslibre2 driver opens it: text commands and replies 0x60.
            session = _session.Session(0x3950, None, 0x60, 0x60, encrypted=True)
            session.connect()
            result = {
                "serial": session.send_text_command(b"$sn?"),
                "history": [row for row in session.query_multirecord(b"$history?") if row],
                "arresult": [row for row in session.query_multirecord(b"$arresult?") if row],
            }
            simulator.stdin.close()
            assert simulator.wait() == 0
            print(json.dumps(result))
            """
        let result = try FreeStyleOracle.json(HostResult.self, script, needing: ["freestyle_hid", "freestyle_keys"])
        XCTAssertEqual(result.serial, FreeStyleDemo.serial + "\r\n")
        XCTAssertEqual(result.history, FreeStyleDemo.history.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) })
        XCTAssertEqual(result.arresult.map(\.first), FreeStyleDemo.arresult.map { String($0.prefix { $0 != "," }) })

        // freestyle-hid's session, as the USB stack saw it, through glucobridge: its requests are
        // not glucobridge's (no line ends), so it is decoded passively.
        let store = try SharedStore(path: folder.appendingPathComponent("store.sqlite").path, timeZone: TimeZone(identifier: "Europe/Berlin")!)
        let outcome = try Importer(store: store).replayOne(captureAt: capture)
        guard case .passive = outcome.replayMode else { return XCTFail("\(String(describing: outcome.replayMode))") }
        XCTAssertEqual(outcome.source, DeviceSource(family: "freestyle", serial: FreeStyleDemo.serial, model: "FreeStyle Libre 2"))
        XCTAssertEqual(try store.glucose().map(\.mgdl), [500, 96, 64, 38, 131, 118, 115, 112])
    }

    func pythonString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
