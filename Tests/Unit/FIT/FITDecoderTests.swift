import Checksums
import Drivers
import Foundation
import Model
import TestSupport
import XCTest

/// The FIT decoder on real files (fixtures/fit, MIT, and ../shared/vectors/fit when present) and
/// on files written byte by byte for what the real files lack. The values asserted are those
/// Garmin's garmin-fit-sdk decodes from the same files (FITOracleTests compares them all).
final class FITDecoderTests: XCTestCase {
    func decode(_ name: String) throws -> FITFile {
        let url = Fixtures.url("fit/\(name)")
        return try FITDecoder.decode(Array(try Data(contentsOf: url)), name: name)
    }

    /// FIT's CRC as the FIT protocol document gives it (developer.garmin.com/fit/protocol/,
    /// "CRC": a 16-entry table folded in a nibble at a time, low nibble first, from 0) is
    /// CRC-16/ARC, which the decoder uses.
    func testFITsNibbleTableCRCIsCRC16ARC() {
        let table: [UInt16] = [
            0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
            0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
        ]
        func documented(_ bytes: [UInt8]) -> UInt16 {
            bytes.reduce(UInt16(0)) { crc, byte in
                var crc = crc
                var step = table[Int(crc & 0xF)]
                crc = (crc >> 4) & 0x0FFF
                crc ^= step ^ table[Int(byte & 0xF)]
                step = table[Int(crc & 0xF)]
                crc = (crc >> 4) & 0x0FFF
                return crc ^ step ^ table[Int(byte >> 4)]
            }
        }
        XCTAssertEqual(documented(Array("123456789".utf8)), 0xBB3D)
        XCTAssertEqual(CRC16.arc.checksum([UInt8]()), 0)
        let file = try? Data(contentsOf: Fixtures.url("fit/Activity.fit"))
        let bytes = [UInt8](file ?? Data())
        XCTAssertFalse(bytes.isEmpty)
        for length in [1, 7, 8, 9, 12, 100, bytes.count] {
            XCTAssertEqual(CRC16.arc.checksum(bytes.prefix(length)), documented(Array(bytes.prefix(length))), "first \(length) bytes")
        }
    }

    /// The SDK's example activity: a 12-byte header (no header CRC), big-endian definitions.
    func testExampleActivityDecodesHeaderFileIDSessionAndRecords() throws {
        let file = try decode("Activity.fit")
        XCTAssertNil(file.damage)
        XCTAssertEqual(file.parts.count, 1)
        let part = file.parts[0]
        XCTAssertEqual(part.header, FITHeader(size: 12, protocolVersion: 0x10, profileVersion: 100, dataSize: 757, crc: nil))
        XCTAssertTrue(part.crcChecked)
        XCTAssertEqual(file.messages.count, 22)

        let id = try XCTUnwrap(file.messages.first)
        XCTAssertEqual(id.global, FITProfile.Message.fileID)
        XCTAssertEqual(id.integer(FITProfile.FileID.type), 4)
        XCTAssertEqual(id.integer(FITProfile.FileID.manufacturer), 15)
        XCTAssertEqual(id.integer(FITProfile.FileID.product), 1)
        XCTAssertEqual(id.integer(FITProfile.FileID.serialNumber), 2_147_483_647)
        XCTAssertEqual(id.integer(FITProfile.FileID.timeCreated), 702_940_946)

        let records = file.messages.filter { $0.global == FITProfile.Message.record }
        XCTAssertEqual(records.count, 14)
        let session = try XCTUnwrap(file.messages.first { $0.global == FITProfile.Message.session })
        XCTAssertEqual(session.integer(FITProfile.Session.startTime), 702_940_946)
        XCTAssertEqual(session.timestamp, 702_941_091)
        XCTAssertEqual(try XCTUnwrap(session.scaled(FITProfile.Session.totalElapsedTime, scale: 1000)), 13.749, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(session.scaled(FITProfile.Session.totalDistance, scale: 100)), 5.73, accuracy: 1e-9)
        XCTAssertEqual(session.integer(FITProfile.Session.totalCalories), 0)
        XCTAssertEqual(session.integer(FITProfile.Session.sport), 1)
        XCTAssertEqual(FITDecoder.date(702_940_946), utc("2012-04-09T21:22:26Z"))
    }

    /// A 14-byte header with its CRC; 337 monitoring messages timed by `timestamp_16`; the
    /// walking steps read as the `cycles` field's stored value (the SDK shows `cycles` 50.0,
    /// scale 2, for a `steps` of 100).
    func testMonitoringFileHeaderCRCAndCumulativeSteps() throws {
        let file = try decode("MonitoringFile.fit")
        XCTAssertNil(file.damage)
        XCTAssertEqual(file.parts[0].header.crc, 0xBBE3)
        XCTAssertEqual(file.parts[0].header.size, 14)
        let monitoring = file.messages.filter { $0.global == FITProfile.Message.monitoring }
        XCTAssertEqual(monitoring.count, 337)
        XCTAssertEqual(monitoring[0].integer(FITProfile.Monitoring.timestamp16), 27492)
        XCTAssertNil(monitoring[0].timestamp)
        let firstSteps = try XCTUnwrap(monitoring.first { $0.integer(FITProfile.Monitoring.cycles) != nil })
        XCTAssertEqual(firstSteps.integer(FITProfile.Monitoring.cycles), 100)
        XCTAssertEqual(firstSteps.integer(FITProfile.Monitoring.timestamp16), 29412)
        // current_activity_type_intensity 70 = walking (6) at intensity 2.
        XCTAssertEqual(firstSteps.field(FITProfile.Monitoring.currentActivityTypeIntensity)?.values, [.bytes([70])])
        let info = try XCTUnwrap(file.messages.first { $0.global == FITProfile.Message.monitoringInfo })
        XCTAssertEqual(info.timestamp, 788_594_400)
        XCTAssertEqual(info.integer(FITProfile.MonitoringInfo.localTimestamp), 788_572_800)
    }

    func testWrongFileCRCIsAnErrorNamingTheFileAndOffset() throws {
        let file = try decode("activity-filecrc.fit")
        guard case .fileCRC(let name, let offset, let stored, let computed) = file.damage else {
            return XCTFail("expected a file CRC error, got \(String(describing: file.damage))")
        }
        XCTAssertEqual(name, "activity-filecrc.fit")
        XCTAssertEqual(offset, 769)
        XCTAssertNotEqual(stored, computed)
        let whole = try decode("Activity.fit")
        XCTAssertEqual(computed, whole.parts[0].crc)
        XCTAssertEqual(file.damage?.description.contains("activity-filecrc.fit: the file CRC at byte 769"), true)
        XCTAssertFalse(file.parts[0].crcChecked)
    }

    /// Cut inside the last message (the activity message): the 21 whole messages are kept.
    func testTruncatedFileKeepsEveryWholeMessageAndSaysWhatWasCut() throws {
        let file = try decode("activity-unexpected-eof.fit")
        guard case .truncated(let name, let offset, let what) = file.damage else {
            return XCTFail("expected a truncation, got \(String(describing: file.damage))")
        }
        XCTAssertEqual(name, "activity-unexpected-eof.fit")
        XCTAssertEqual(offset, 768)
        XCTAssertTrue(what.contains("a data message of global number 34"), what)
        let whole = try decode("Activity.fit")
        XCTAssertEqual(file.messages, Array(whole.messages.dropLast()))
        XCTAssertEqual(whole.messages.last?.global, FITProfile.Message.activity)
    }

    /// A whole file, then a chained one whose header says `.GIT`: the first is kept, the second named.
    func testDamagedChainedHeaderKeepsTheFirstFile() throws {
        let file = try decode("activity-settings-corruptheader.fit")
        XCTAssertEqual(file.parts.count, 1)
        XCTAssertTrue(file.parts[0].crcChecked)
        XCTAssertEqual(file.messages.count, 22)
        XCTAssertEqual(
            file.damage, .badHeader(file: "activity-settings-corruptheader.fit", offset: 771, reason: "bytes 8–11 are \".GIT\", not \".FIT\""))
    }

    func testNonFITFileIsRefusedByName() {
        let pcap = Array(try! Data(contentsOf: Fixtures.url("dexcom/ecc1-g4-receiver.pcap")))
        XCTAssertThrowsError(try FITDecoder.decode(pcap, name: "ecc1-g4-receiver.pcap")) { error in
            guard case .notFIT(let name, _) = error as? FITError else { return XCTFail("\(error)") }
            XCTAssertEqual(name, "ecc1-g4-receiver.pcap")
        }
        XCTAssertThrowsError(try FITDecoder.decode([14, 0x10], name: "short.fit")) { error in
            XCTAssertEqual(error as? FITError, .notFIT(file: "short.fit", reason: "it has 2 bytes, fewer than a FIT header's 12"))
        }
        XCTAssertFalse(FITDecoder.isFIT(prefix: pcap.prefix(12)))
    }

    func testWrongHeaderCRCNamesTheOffset() throws {
        var bytes = Array(try Data(contentsOf: Fixtures.url("fit/MonitoringFile.fit")))
        bytes[12] ^= 0x01
        let file = try FITDecoder.decode(bytes, name: "MonitoringFile.fit")
        XCTAssertEqual(file.damage, .headerCRC(file: "MonitoringFile.fit", offset: 12, stored: 0xBBE2, computed: 0xBBE3))
        XCTAssertTrue(file.messages.isEmpty)
    }

    /// Compressed timestamps count on from the last full one, wrapping at 32 s; developer fields
    /// are skipped; a big-endian definition beside a little-endian one; invalid values read as such.
    func testSyntheticFileWithCompressedTimestampsDeveloperFieldsAndBothByteOrders() throws {
        let file = try FITDecoder.decode(FITBuilder.syntheticActivity(), name: "synthetic.fit")
        XCTAssertNil(file.damage)
        let records = file.messages.filter { $0.global == FITProfile.Message.record }
        XCTAssertEqual(records.map(\.timestamp), [1_000_000_000, 1_000_000_030, 1_000_000_034])
        XCTAssertEqual(records.map { $0.integer(FITProfile.Record.heartRate) }, [120, 125, nil])
        XCTAssertEqual(records.map { $0.scaled(FITProfile.Record.speed, scale: 1000) }, [2.5, 2.5, nil])
        XCTAssertEqual(records.map { $0.scaled(FITProfile.Record.distance, scale: 100) }, [0, 75, 90])
        XCTAssertEqual(records.map(\.developerBytes), [2, 2, 2])
        XCTAssertEqual(records[2].field(FITProfile.Record.heartRate)?.values, [.invalid])
        let id = try XCTUnwrap(file.messages.first)
        XCTAssertEqual(id.integer(FITProfile.FileID.serialNumber), 123_456_789)
        XCTAssertEqual(id.integer(FITProfile.FileID.product), 2697)
    }

    /// Two files back to back are both read.
    func testChainedFilesAreBothRead() throws {
        let one = FITBuilder.syntheticActivity()
        let file = try FITDecoder.decode(one + one, name: "chain.fit")
        XCTAssertNil(file.damage)
        XCTAssertEqual(file.parts.map(\.offset), [0, one.count])
        XCTAssertEqual(file.messages.count, 10)
    }

    /// Every cut of a file either decodes whole (only the full length) or names the cut, keeping
    /// the messages wholly before it.
    func testEveryCutOfTheSyntheticFileIsNamed() throws {
        let bytes = FITBuilder.syntheticActivity()
        let whole = try FITDecoder.decode(bytes, name: "whole.fit")
        for length in 12..<bytes.count {
            let file = try FITDecoder.decode(Array(bytes.prefix(length)), name: "cut.fit")
            guard case .truncated(_, let offset, _) = file.damage else {
                return XCTFail("cut at \(length): \(String(describing: file.damage))")
            }
            XCTAssertEqual(offset, length)
            XCTAssertEqual(file.messages, whole.messages.filter { $0.offset < length }.prefix(file.messages.count).map { $0 })
            XCTAssertTrue(
                whole.messages.dropFirst(file.messages.count).allSatisfy { message in
                    let next = whole.messages.first { $0.offset > message.offset }?.offset ?? bytes.count - 2
                    return next > length
                }, "cut at \(length) dropped a whole message")
        }
    }

    /// A data message before any definition, and a definition whose field has no bytes.
    func testUndefinedLocalTypeAndEmptyFieldAreNamed() throws {
        var builder = FITBuilder()
        builder.data(local: 5, [1, 2, 3])
        var file = try FITDecoder.decode(builder.file(), name: "undefined.fit")
        XCTAssertEqual(
            file.damage, .badRecord(file: "undefined.fit", offset: 14, reason: "a data message of local type 5, which no definition precedes"))

        builder = FITBuilder()
        builder.define(local: 0, global: 20, fields: [(3, 0, 0x02)])
        file = try FITDecoder.decode(builder.file(), name: "empty-field.fit")
        XCTAssertEqual(
            file.damage,
            .badRecord(file: "empty-field.fit", offset: 14, reason: "the definition of global message 20 gives field 3 a size of 0 bytes"))
    }

    // MARK: - The larger real files, read from ../shared when it is present

    func shared(_ name: String) throws -> FITFile {
        guard let url = Fixtures.sharedVector("fit/\(name)") else { throw XCTSkip("../shared/vectors/fit/\(name) is not present") }
        return try FITDecoder.decode(Array(try Data(contentsOf: url)), name: name)
    }

    func testFenix2RunDecodesEveryRecord() throws {
        let file = try shared("activity-small-fenix2-run.fit")
        XCTAssertNil(file.damage)
        let records = file.messages.filter { $0.global == FITProfile.Message.record }
        XCTAssertEqual(records.count, 2809)
        XCTAssertEqual(records[1].timestamp, 808_584_310)
        XCTAssertEqual(records[1].integer(FITProfile.Record.heartRate), 69)
        XCTAssertEqual(records[1].integer(FITProfile.Record.cadence), 56)
        XCTAssertEqual(try XCTUnwrap(records[1].scaled(FITProfile.Record.distance, scale: 100)), 3.38, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(records[1].scaled(FITProfile.Record.speed, scale: 1000)), 5.89, accuracy: 1e-9)
        let session = try XCTUnwrap(file.messages.first { $0.global == FITProfile.Message.session })
        XCTAssertEqual(try XCTUnwrap(session.scaled(FITProfile.Session.totalDistance, scale: 100)), 9008.22, accuracy: 1e-9)
        XCTAssertEqual(session.integer(FITProfile.Session.totalCalories), 516)
        let activity = try XCTUnwrap(file.messages.first { $0.global == FITProfile.Message.activity })
        XCTAssertEqual(activity.integer(FITProfile.Activity.localTimestamp), 808_594_366)
        XCTAssertEqual(activity.timestamp, 808_587_166)
    }

    func testEdge500RideDecodesEveryRecord() throws {
        let file = try shared("sample-activity.fit")
        XCTAssertNil(file.damage)
        XCTAssertEqual(file.messages.filter { $0.global == FITProfile.Message.record }.count, 3098)
        let session = try XCTUnwrap(file.messages.first { $0.global == FITProfile.Message.session })
        XCTAssertEqual(session.integer(FITProfile.Session.sport), 2)
        XCTAssertEqual(session.integer(FITProfile.Session.avgHeartRate), 166)
        XCTAssertEqual(try XCTUnwrap(session.scaled(FITProfile.Session.totalElapsedTime, scale: 1000)), 11741.57, accuracy: 1e-9)
    }
}

/// `fixtures/fit/synthetic-compressed-developer.fit` is ``FITBuilder/syntheticActivity()``
/// written out, so that garmin-fit-sdk (FITOracleTests) and the fuzzer read it too;
/// `GLUCOBRIDGE_RECORD_SNAPSHOTS=1` writes it anew.
final class FITSyntheticFixtureTests: XCTestCase {
    func testCommittedSyntheticFileIsTheBuildersFile() throws {
        let url = Fixtures.url("fit/synthetic-compressed-developer.fit")
        let bytes = FITBuilder.syntheticActivity()
        if ProcessInfo.processInfo.environment["GLUCOBRIDGE_RECORD_SNAPSHOTS"] == "1" { try Data(bytes).write(to: url) }
        XCTAssertEqual(Array(try Data(contentsOf: url)), bytes)
    }
}

/// Monitoring messages as samples, on a file written byte by byte: `timestamp_16` counted on
/// from the last full timestamp, steps differenced per activity type and spread over their
/// interval, a count that falls restarting from zero, heart rate at its time.
final class FITMonitoringMappingTests: XCTestCase {
    func testStepsAreDifferencedPerTypeAndSpreadOverTheirInterval() throws {
        let t0: UInt32 = 1_000_000_020  // a whole minute: FIT's epoch is one, and 1_000_000_020 = 60 × 16_666_667
        var builder = FITBuilder()
        builder.define(local: 0, global: 0, fields: [(0, 1, 0x00), (3, 4, 0x8C), (4, 4, 0x86)])
        builder.data(local: 0, [32] + FITBuilder.le32(42) + FITBuilder.le32(t0))
        builder.define(local: 1, global: 103, fields: [(253, 4, 0x86), (0, 4, 0x86)])
        builder.data(local: 1, FITBuilder.le32(t0) + FITBuilder.le32(t0 &- 3600))
        // monitoring: timestamp_16, activity_type, cycles (steps), heart_rate.
        builder.define(local: 2, global: 55, fields: [(26, 2, 0x84), (5, 1, 0x00), (3, 4, 0x86), (27, 1, 0x02)])
        func at(_ seconds: UInt32) -> [UInt8] { FITBuilder.le16(UInt16(truncatingIfNeeded: t0 + seconds)) }
        builder.data(local: 2, at(120) + [6] + FITBuilder.le32(60) + [0xFF])  // 60 walking steps over 2 minutes
        builder.data(local: 2, at(150) + [1] + FITBuilder.le32(10) + [130])  // 10 running steps over 30 s
        builder.data(local: 2, at(240) + [6] + FITBuilder.le32(30) + [0xFF])  // walking 60 → 30: restarted, 30 steps
        let file = try FITDecoder.decode(builder.file(), name: "monitoring.fit")
        XCTAssertNil(file.damage)
        let activity = try FITActivityFile(file)
        XCTAssertEqual(activity.source.serial, "42/monitoring_b/2021-09-08T01:47:00Z")
        XCTAssertEqual(activity.zoneOffset?.seconds, -3600)
        let minute = { (offset: UInt32) in FITDecoder.date(t0 + offset) }
        let steps = activity.samples.filter { $0.cadence != nil }
        XCTAssertEqual(steps.map(\.time), [minute(0), minute(60), minute(120), minute(180)])
        // 30 + 30 walking; 10 running in 120–150 s plus 30 walking over 150–240 s: 10 in 150–180, 20 in 180–240.
        for (cadence, expected) in zip(steps.compactMap(\.cadence), [30.0, 30, 20, 20]) { XCTAssertEqual(cadence, expected, accuracy: 1e-9) }
        XCTAssertEqual(steps.count, 4)
        XCTAssertEqual(steps.map(\.gait), [.walking, .walking, .running, .walking])
        XCTAssertEqual(activity.samples.filter { $0.heartRate != nil }.map(\.time), [minute(150)])
        XCTAssertEqual(activity.samples.compactMap(\.heartRate), [130])
    }
}
