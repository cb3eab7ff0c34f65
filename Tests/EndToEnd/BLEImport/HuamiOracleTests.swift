import CaptureBluetooth
import Drivers
import Foundation
import GRDB
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import Transport
import XCTest

/// The Huami band's per-minute samples against amazfit-pyclient (PyPI, MIT), an independent
/// decoder of the same 8-byte samples, run by `Tests/Oracles/huami_samples.py`: the fetches of a
/// live import of the simulated band, taken from its btsnoop recording, decoded by both, minute by
/// minute, and compared with what the store holds.
final class HuamiOracleTests: XCTestCase {
    struct OracleSample: Decodable, Equatable {
        var time: String
        var kind: Int
        var intensity: Int
        var steps: Int
        var heartRate: Int
        var extra: [Int]

        /// The oracle's JSON keys are Python's names.
        enum CodingKeys: String, CodingKey {
            case time, kind, intensity, steps, extra
            case heartRate = "heart_rate"
        }
    }

    func testSamplesAgreeWithAmazfitPyclient() throws {
        let key = (0..<16).map { _ in UInt8.random(in: 0...255) }
        HuamiAuthKeys.supply(key, for: HuamiBandDemo.peer.address)
        let folder = try Fixtures.temporaryDirectory()
        let recording = folder.appendingPathComponent("band.btsnoop")
        let store = try freshStore(zone: "Europe/Berlin")
        let clock = SimulatedClock(HuamiBandDemo.connected(days: 3))
        let peripheral = HuamiBandDemo.band(days: 3, key: key).peripheral(clock: clock)
        let dataHandle = try XCTUnwrap(peripheral.valueHandle(of: HuamiCharacteristic.activityData.uuid))
        let controlHandle = try XCTUnwrap(peripheral.valueHandle(of: HuamiCharacteristic.fetchControl.uuid))
        _ = try Importer(store: store).run(
            .bluetooth(ConnectedPeer(peripheral, origin: "simulated band")),
            context: ImportContext(recordTo: recording, recordingClock: { clock.now }, limits: .replay))

        // The fetches as the recording holds them: each start answer's time, then the data
        // packets without their counters.
        var fetches: [(start: [UInt8], data: [UInt8])] = []
        let connection = try XCTUnwrap(try LECapture.read(contentsOf: recording).attConnections.first)
        for pdu in connection.att where pdu.direction == .received && pdu.bytes.first == 0x1B && pdu.bytes.count > 3 {
            let handle = UInt16(pdu.bytes[1]) | UInt16(pdu.bytes[2]) << 8
            let value = Array(pdu.bytes.dropFirst(3))
            if handle == controlHandle, value.count == 15, value.starts(with: [0x10, 0x01, 0x01]) {
                fetches.append((Array(value[7..<15]), []))
            } else if handle == dataHandle, !fetches.isEmpty {
                fetches[fetches.count - 1].data += value.dropFirst()
            }
        }
        // Three days of minutes, nothing newer, then the sports summary fetch: no workouts.
        XCTAssertEqual(fetches.map(\.data.count), [11520, 11520, 11040, 0, 0])

        let input = folder.appendingPathComponent("fetches.json")
        let json = fetches.map { ["start": Hex.encode($0.start, separator: ""), "data": Hex.encode($0.data, separator: "")] }
        try JSONSerialization.data(withJSONObject: json).write(to: input)
        let script = Fixtures.repositoryRoot.appendingPathComponent("Tests/Oracles/huami_samples.py")
        let oracle = try runOracle(script: script, input: input)
        XCTAssertEqual(oracle.count, 4260)

        // glucobridge's decode of the same bytes.
        var ours: [OracleSample] = []
        for fetch in fetches {
            var reader = 0
            let start = try HuamiFetchAnswer.decode([0x10, 0x01, 0x01, 0, 0, 0, 0] + fetch.start)
            guard case .started(_, let time) = start else { return XCTFail("\(start)") }
            for sample in HuamiActivitySample.samples(in: fetch.data, form: .extended).samples {
                let instant = time.instant.addingTimeInterval(TimeInterval(reader * 60))
                reader += 1
                ours.append(
                    OracleSample(
                        time: CivilDate.wallClock(Int64(instant.timeIntervalSince1970)) + "Z", kind: Int(sample.kind),
                        intensity: Int(sample.intensity), steps: Int(sample.steps), heartRate: Int(sample.heartRate),
                        extra: sample.extra!.map(Int.init)))
            }
        }
        XCTAssertEqual(ours.count, oracle.count)
        for (mine, theirs) in zip(ours, oracle) where mine != theirs {
            XCTFail("glucobridge decodes \(mine), amazfit-pyclient \(theirs)")
            break
        }

        // And the store holds each minute as amazfit-pyclient decoded it.
        let rows = try store.database.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT minute, heart_rate_bpm, step_cadence_spm, device_activity_kind, device_intensity FROM activity_minute ORDER BY minute"
            )
        }
        XCTAssertEqual(rows.count, oracle.count)
        for (row, sample) in zip(rows, oracle) {
            let minute: String = row[0]
            let heartRate: Double? = row[1]
            let steps: Double? = row[2]
            let kind: Int? = row[3]
            let intensity: Int? = row[4]
            guard minute == sample.time.dropLast().replacingOccurrences(of: "T", with: " ") + ".000", steps == Double(sample.steps),
                kind == sample.kind, intensity == sample.intensity,
                heartRate == ([0, 255].contains(sample.heartRate) ? nil : Double(sample.heartRate))
            else {
                return XCTFail(
                    "the store holds \(minute) \(String(describing: heartRate)) bpm \(String(describing: steps)) steps kind \(String(describing: kind)) intensity \(String(describing: intensity)); amazfit-pyclient decodes \(sample)"
                )
            }
        }
    }

    private func runOracle(script: URL, input: URL) throws -> [OracleSample] {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        guard
            let python = paths.map({ URL(fileURLWithPath: "\($0)/python3") }).first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
        else { throw XCTSkip("python3 is not on PATH: the amazfit-pyclient oracle cannot run") }
        let check = try runProcess(python, ["-c", "import amazfit_pyclient.fetch.fetch_activity"])
        guard check.status == 0 else {
            throw XCTSkip(
                "the Python module amazfit_pyclient is not installed (pip install amazfit-pyclient; .ci/setup --tests does): \(check.stderr.split(separator: "\n").last ?? "")"
            )
        }
        let result = try runProcess(python, [script.path, input.path])
        guard result.status == 0 else { throw OracleError(stderr: result.stderr) }
        return try JSONDecoder().decode([OracleSample].self, from: Data(result.stdout.utf8))
    }

    struct OracleError: Error, CustomStringConvertible {
        var stderr: String
        var description: String { "amazfit-pyclient failed: \(stderr)" }
    }
}
