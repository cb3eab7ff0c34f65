import Drivers
import Foundation
import GRDB
import ImportTestSupport
import Importer
import Simulators
import TestSupport
import XCTest

/// Every FIT message and field glucobridge uses, against Garmin's own decoder: garmin-fit-sdk
/// (PyPI) decodes the same files in another process (`Tests/Oracles/fit_sdk_fields.py`) and each
/// value must agree. Skipped, saying so, when python3 or the module is missing
/// (`.ci/setup --tests` installs it).
final class FITOracleTests: XCTestCase {
    /// One message as the oracle prints it: its global number and its fields.
    struct OracleFile: Decodable {
        var file: String
        var messages: [OracleMessage]
    }

    struct OracleMessage: Decodable {
        var global: UInt16
        var fields: [String: Double]

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            global = try container.decode(UInt16.self)
            // Arrays and text (no field glucobridge uses) are left out.
            let values = try container.decode([String: Value].self)
            fields = values.compactMapValues(\.number)
        }

        enum Value: Decodable {
            case number(Double)
            case other
            init(from decoder: any Decoder) throws {
                self = (try? decoder.singleValueContainer().decode(Double.self)).map(Value.number) ?? .other
            }
            var number: Double? { if case .number(let value) = self { value } else { nil } }
        }
    }

    func oracle(_ files: [URL]) throws -> [OracleFile] {
        guard let python = FreeStyleOracle.python else { throw XCTSkip("python3 is not on PATH: the garmin-fit-sdk oracle cannot run") }
        let check = try runProcess(python, ["-c", "import garmin_fit_sdk"])
        guard check.status == 0 else {
            throw XCTSkip(
                "the Python module garmin_fit_sdk is not installed (pip install garmin-fit-sdk): \(check.stderr.split(separator: "\n").last ?? "")")
        }
        let script = Fixtures.repositoryRoot.appendingPathComponent("Tests/Oracles/fit_sdk_fields.py")
        let result = try runProcess(python, [script.path] + files.map(\.path))
        guard result.status == 0 else { throw OracleFailure(stderr: result.stderr) }
        return try JSONDecoder().decode([OracleFile].self, from: Data(result.stdout.utf8))
    }

    struct OracleFailure: Error, CustomStringConvertible {
        var stderr: String
        var description: String { "garmin-fit-sdk failed: \(stderr)" }
    }

    /// The fields glucobridge reads from one message, by the profile's names, scaled as the
    /// profile says: what `FITActivityFile` takes from it.
    static func used(_ message: FITMessage) -> [String: Double]? {
        var fields: [String: Double?] = [:]
        func time(_ number: UInt8) -> Double? { message.integer(number).map(Double.init) }
        switch message.global {
        case FITProfile.Message.fileID:
            typealias F = FITProfile.FileID
            fields = [
                "type": message.scaled(F.type), "manufacturer": message.scaled(F.manufacturer), "product": message.scaled(F.product),
                "serial_number": message.scaled(F.serialNumber), "time_created": message.scaled(F.timeCreated),
            ]
        case FITProfile.Message.session, FITProfile.Message.lap:
            typealias F = FITProfile.Session
            let lap = message.global == FITProfile.Message.lap
            fields = [
                "timestamp": time(FITProfile.timestampField), "start_time": message.scaled(F.startTime),
                "sport": message.scaled(lap ? FITProfile.Lap.sport : F.sport),
                "total_elapsed_time": message.scaled(F.totalElapsedTime, scale: 1000),
                "total_timer_time": message.scaled(F.totalTimerTime, scale: 1000),
                "total_distance": message.scaled(F.totalDistance, scale: 100), "total_calories": message.scaled(F.totalCalories),
                "avg_heart_rate": message.scaled(lap ? FITProfile.Lap.avgHeartRate : F.avgHeartRate),
                "max_heart_rate": message.scaled(lap ? FITProfile.Lap.maxHeartRate : F.maxHeartRate),
                "message_index": message.scaled(254),
            ]
        case FITProfile.Message.record:
            typealias F = FITProfile.Record
            fields = [
                "timestamp": message.timestamp.map(Double.init), "heart_rate": message.scaled(F.heartRate),
                "cadence": message.scaled(F.cadence), "fractional_cadence": message.scaled(F.fractionalCadence, scale: 128),
                "distance": message.scaled(F.distance, scale: 100),
                // The speed used: the SDK expands `speed` into `enhanced_speed` too.
                "enhanced_speed": message.scaled(F.enhancedSpeed, scale: 1000) ?? message.scaled(F.speed, scale: 1000),
            ]
        case FITProfile.Message.activity:
            fields = ["timestamp": time(FITProfile.timestampField), "local_timestamp": message.scaled(FITProfile.Activity.localTimestamp)]
        case FITProfile.Message.monitoringInfo:
            fields = ["timestamp": time(FITProfile.timestampField), "local_timestamp": message.scaled(FITProfile.MonitoringInfo.localTimestamp)]
        case FITProfile.Message.monitoring:
            typealias F = FITProfile.Monitoring
            let packed: UInt8? = {
                if case .bytes(let bytes)? = message.field(F.currentActivityTypeIntensity)?.values.first { return bytes.first }
                return nil
            }()
            let type = message.integer(F.activityType) ?? packed.map { Int64($0 & 0x1F) }
            // The SDK expands the packed byte's bits 5–7 into `intensity`, unscaled.
            let intensity = message.integer(F.intensity) ?? packed.map { Int64($0 >> 5) }
            fields = [
                "timestamp": time(FITProfile.timestampField), "timestamp_16": message.scaled(F.timestamp16),
                "activity_type": type.map(Double.init), "intensity": intensity.map(Double.init), "steps": message.scaled(F.cycles),
                "active_calories": message.scaled(F.activeCalories),
                "heart_rate": message.scaled(F.heartRate), "duration_min": message.scaled(F.durationMin),
            ]
        default:
            return nil
        }
        return fields.compactMapValues { $0 }
    }

    /// The SDK's fields as glucobridge names them: `steps` is the `cycles` field's stored value. The
    /// SDK gives `steps` (scale 1) only where it resolves the subfield, from an `activity_type`
    /// field of the message; where the type comes from `current_activity_type_intensity` it gives
    /// `cycles` at the profile's scale 2, so those steps are twice its `cycles` (research note
    /// §2.C: "read the steps subfield, not cycles").
    static func sdkFields(_ message: OracleMessage) -> [String: Double] {
        var fields = message.fields
        guard message.global == FITProfile.Message.monitoring else { return fields }
        if let cycles = fields.removeValue(forKey: "cycles"), fields["steps"] == nil { fields["steps"] = cycles * 2 }
        return fields
    }

    /// With `sdkPrefix`, the SDK's messages are compared as the first of ours (the SDK stops at
    /// what it does not read).
    func assertAgrees(_ urls: [URL], sdkPrefix: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws {
        let decoded = try oracle(urls)
        XCTAssertEqual(decoded.count, urls.count)
        for (url, theirs) in zip(urls, decoded) {
            let fit = try FITDecoder.decode(Array(try Data(contentsOf: url)), name: url.lastPathComponent)
            let ours = fit.messages.compactMap { message in Self.used(message).map { (message.global, $0) } }
            if !sdkPrefix {
                XCTAssertEqual(ours.count, theirs.messages.count, "\(url.lastPathComponent): messages glucobridge uses", file: file, line: line)
            }
            var compared = 0
            for (index, (mine, sdk)) in zip(ours, theirs.messages).enumerated() {
                XCTAssertEqual(mine.0, sdk.global, "\(url.lastPathComponent) message \(index)", file: file, line: line)
                let expected = Self.sdkFields(sdk)
                XCTAssertEqual(
                    Set(mine.1.keys), Set(expected.keys), "\(url.lastPathComponent) message \(index) (\(sdk.global)): fields", file: file, line: line)
                for (name, value) in mine.1 {
                    guard let other = expected[name] else { continue }
                    XCTAssertEqual(
                        value, other, accuracy: 1e-9 * max(1, abs(other)), "\(url.lastPathComponent) message \(index) \(name)", file: file, line: line
                    )
                    compared += 1
                }
            }
            XCTAssertGreaterThan(compared, 0, "\(url.lastPathComponent): no values compared", file: file, line: line)
        }
    }

    /// The committed fixtures, the damaged ones included (the SDK reads them as far as we do).
    func testFixturesAgreeWithGarminFITSDK() throws {
        try assertAgrees(
            [
                "Activity.fit", "MonitoringFile.fit", "garmin-edge-820-bike.fit", "activity-filecrc.fit", "activity-unexpected-eof.fit",
                "activity-settings-corruptheader.fit",
            ].map { Fixtures.url("fit/\($0)") })
    }

    /// The file written byte by byte: a developer field the SDK skips as we do, up to the first
    /// compressed-timestamp header, where the SDK stops ("Compressed timestamp messages are not
    /// currently supported", garmin-fit-sdk 21.x); the decoder's own tests pin the rest.
    func testSyntheticFileAgreesUpToTheSDKsFirstCompressedTimestamp() throws {
        let url = Fixtures.url("fit/synthetic-compressed-developer.fit")
        XCTAssertEqual(try oracle([url]).first?.messages.count, 2)
        try assertAgrees([url], sdkPrefix: true)
    }

    /// The benchmark's ride (``FITRideWriter``), an hour of it: every record, lap and session
    /// field glucobridge uses equals the SDK's.
    func testTheBenchmarksRideAgreesWithGarminFITSDK() throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("ride-1h.fit")
        try Data(FITRideWriter(start: Date(timeIntervalSince1970: 1_719_216_000), hours: 1).bytes()).write(to: url)
        XCTAssertEqual(try oracle([url]).first?.messages.count, 1 + 3600 + 1 + 1 + 1)
        try assertAgrees([url])
    }

    /// What reaches the store: each session garmin-fit-sdk decodes is an Exercise log whose
    /// duration is its `total_elapsed_time`, distance its `total_distance` (m) and energy its
    /// `total_calories` in kJ (× 4.184), read back from a real SQLite store after a replay.
    func testStoredSessionsCarryTheSDKsDistanceAndEnergy() throws {
        var files = ["Activity.fit", "garmin-edge-820-bike.fit"].map { Fixtures.url("fit/\($0)") }
        if let folder = Fixtures.sharedVector("fit") {
            files += try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".fit") }.sorted()
                .map { folder.appendingPathComponent($0) }
        }
        var compared = 0
        for (url, decoded) in zip(files, try oracle(files)) {
            let sessions = decoded.messages.filter { $0.global == FITProfile.Message.session }
            guard !sessions.isEmpty else { continue }
            let (store, _) = try makeStore(zone: "UTC")
            do {
                _ = try Importer(store: store).run(.capture(url))
            } catch {
                // A file with a wrong CRC or a damaged header is refused (the SDK reads on).
                let message = "\(error)"
                XCTAssertTrue(message.contains("CRC") || message.contains("damaged"), "\(url.lastPathComponent): \(message)")
                continue
            }
            let rows = try store.database.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT duration_seconds, distance_m, energy_kj FROM exercise ORDER BY CAST(substr(device_record_key, 9) AS INTEGER)")
            }
            XCTAssertEqual(rows.count, sessions.count, "\(url.lastPathComponent): one Exercise log per session")
            for (row, sdk) in zip(rows, sessions) {
                let name = url.lastPathComponent
                XCTAssertEqual(row[0] as Double, try XCTUnwrap(sdk.fields["total_elapsed_time"]), accuracy: 1e-6, name)
                XCTAssertEqual(row[1] as Double?, sdk.fields["total_distance"], name)
                XCTAssertEqual(row[2] as Double?, sdk.fields["total_calories"].map { $0 * 4.184 }, name)
                compared += 1
            }
        }
        XCTAssertGreaterThanOrEqual(compared, 2)
    }

    /// Every FIT file of ../shared/vectors/fit (the fēnix 2 run, the Edge 500 ride and the rest).
    func testSharedVectorsAgreeWithGarminFITSDK() throws {
        guard let folder = Fixtures.sharedVector("fit") else { throw XCTSkip("../shared/vectors/fit is not present") }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".fit") }.sorted()
            .map { folder.appendingPathComponent($0) }
        XCTAssertGreaterThanOrEqual(files.count, 8)
        try assertAgrees(files)
    }
}
