import Drivers
import Foundation
import TestSupport
import XCTest

/// CGMS characteristics: measurement records, feature, status, session start and run time, and
/// the reading time derived from them (Continuous Glucose Monitoring Service 1.0.2).
final class CGMSTests: XCTestCase {
    /// Nordic's two CGM records, decoded with their CRCs checked.
    func testNordicRecordsDecodeWithValidCRC() throws {
        let full = try CGMMeasurement.records(in: hexBytes("0F E3 D2 E4 05 00 02 14 FF 02 F0 E5 F3 8E 3F"), e2eCRC: true)
        XCTAssertEqual(full.count, 1)
        XCTAssertEqual(full[0].glucose.value, 12.34)
        XCTAssertEqual(full[0].timeOffsetMinutes, 5)
        XCTAssertEqual(full[0].annunciation.map(\.flagBit), [5, 6, 7])
        XCTAssertEqual(full[0].annunciation.map(\.raw), [0x02, 0x14, 0xFF])
        XCTAssertEqual(full[0].trend?.value, 0.2)
        XCTAssertEqual(full[0].quality?.value, 99.7)
        XCTAssertEqual(full[0].crc, .valid(0x3F8E))

        let short = try CGMMeasurement.records(in: hexBytes("08 00 0C 10 06 00 59 6F"), e2eCRC: nil)
        XCTAssertEqual(
            short,
            [
                CGMMeasurement(size: 8, flags: 0, glucose: .finite(mantissa: 12, exponent: 1), timeOffsetMinutes: 6, crc: .valid(0x6F59))
            ])
        XCTAssertEqual(short[0].glucose.value, 120)
    }

    func testFeatureWithAndWithoutE2ECRC() throws {
        let supported = try CGMFeature.decode(hexBytes("00 90 01 59 C4 5C"))
        XCTAssertEqual(supported.features, [.e2eCRC, .trendInformation, .quality])
        XCTAssertEqual(supported.features.rawValue, 0x019000)
        XCTAssertTrue(supported.supportsE2ECRC)
        XCTAssertEqual(supported.sample, GlucoseSample(type: 9, location: 5))
        XCTAssertEqual(supported.sample.description, "interstitial fluid, subcutaneous tissue")
        XCTAssertEqual(supported.crc, .valid(0x5CC4))

        let unsupported = try CGMFeature.decode(hexBytes("01 00 00 59 FF FF"))
        XCTAssertFalse(unsupported.supportsE2ECRC)
        XCTAssertEqual(unsupported.features, [.calibration])
        XCTAssertEqual(unsupported.crcField, 0xFFFF)
        XCTAssertEqual(unsupported.crc, .absent)

        XCTAssertThrowsError(try CGMFeature.decode(hexBytes("00 90 01 59 C4 5D"))) { error in
            XCTAssertEqual(
                error as? BLEValueError,
                .crcMismatch(
                    characteristic: .cgmFeature, offset: 4, carried: 0x5DC4, computed: 0x5CC4))
            XCTAssertEqual(
                (error as? BLEValueError)?.description,
                "CGM Feature (0x2AA8) at byte 4: E2E-CRC is 0x5DC4 but the bytes before it give 0x5CC4")
        }
        XCTAssertThrowsError(try CGMFeature.decode(hexBytes("00 90 01 59")))
    }

    func testSessionStartTimeToUTC() throws {
        let start = try CGMSessionStartTime.decode(hexBytes("E8 07 01 0F 07 00 00 04 00 B1 8D"), e2eCRC: true)
        XCTAssertEqual(start.localTime, GATTDateTime(year: 2024, month: 1, day: 15, hours: 7, minutes: 0, seconds: 0))
        XCTAssertEqual(start.timeZoneQuarterHours, 4)
        XCTAssertEqual(start.dstOffset, .standardTime)
        XCTAssertEqual(start.crc, .valid(0x8DB1))
        XCTAssertEqual(start.utcStart, utc("2024-01-15T06:00:00Z"))
        XCTAssertEqual(start.time(ofOffsetMinutes: 60), utc("2024-01-15T07:00:00Z"))
        XCTAssertEqual(start.encoded(withCRC: true), hexBytes("E8 07 01 0F 07 00 00 04 00 B1 8D"))
        XCTAssertEqual(start.encoded(withCRC: false), hexBytes("E8 07 01 0F 07 00 00 04 00"))
    }

    func testSessionStartTimeZonesAndDaylightSaving() throws {
        // 2024-07-01 12:00 local, UTC+1 and daylight time (+1 h): 10:00Z.
        let summer = try CGMSessionStartTime.decode(hexBytes("E8 07 07 01 0C 00 00 04 04"), e2eCRC: false)
        XCTAssertEqual(summer.utcStart, utc("2024-07-01T10:00:00Z"))
        // 2023-12-31 22:30 local at UTC−5 (−20 quarter hours): 2024-01-01T03:30Z, across the year end.
        let west = try CGMSessionStartTime.decode(hexBytes("E7 07 0C 1F 16 1E 00 EC 00"), e2eCRC: nil)
        XCTAssertEqual(west.utcStart, utc("2024-01-01T03:30:00Z"))
        // Unknown zone, unknown DST or unknown date: no UTC start.
        XCTAssertNil(try CGMSessionStartTime.decode(hexBytes("E8 07 01 0F 07 00 00 80 00"), e2eCRC: false).utcStart)
        XCTAssertNil(try CGMSessionStartTime.decode(hexBytes("E8 07 01 0F 07 00 00 04 FF"), e2eCRC: false).utcStart)
        XCTAssertNil(try CGMSessionStartTime.decode(hexBytes("00 00 00 00 07 00 00 04 00"), e2eCRC: false).utcStart)
    }

    func testSessionStartTimeRejectsImpossibleFields() {
        func field(_ hex: String) -> String? {
            do {
                _ = try CGMSessionStartTime.decode(hexBytes(hex), e2eCRC: false)
                return nil
            } catch {
                guard case .invalidField(_, let field, _, _) = error else { return "\(error)" }
                return field
            }
        }
        XCTAssertEqual(field("E8 07 0D 0F 07 00 00 04 00"), "session start time")  // month 13
        XCTAssertEqual(field("E8 07 02 1E 07 00 00 04 00"), "session start time")  // 30 February
        XCTAssertEqual(field("E8 07 01 0F 18 00 00 04 00"), "session start time")  // hour 24
        XCTAssertEqual(field("2D 06 01 0F 07 00 00 04 00"), "session start time")  // year 1581
        XCTAssertEqual(field("E8 07 01 0F 07 00 00 39 00"), "time zone")  // +57 quarter hours
        XCTAssertEqual(field("E8 07 01 0F 07 00 00 04 03"), "DST offset")
        XCTAssertThrowsError(try CGMSessionStartTime.decode(hexBytes("E8 07 01 0F 07 00 00 04 00"), e2eCRC: true)) { error in
            XCTAssertEqual(error as? BLEValueError, .missingCRC(characteristic: .cgmSessionStartTime, offset: 9))
        }
    }

    func testReadingTimeIsSessionStartPlusOffset() {
        let start = utc("2024-01-15T06:00:00Z")
        XCTAssertEqual(CGMSessionStartTime.time(sessionStart: start, offsetMinutes: 0), start)
        XCTAssertEqual(CGMSessionStartTime.time(sessionStart: start, offsetMinutes: 63), utc("2024-01-15T07:03:00Z"))
        XCTAssertEqual(CGMSessionStartTime.time(sessionStart: start, offsetMinutes: 65535), utc("2024-02-29T18:15:00Z"))
    }

    func testStatusAndRunTime() throws {
        let status = try CGMStatus.decode(E2ECRC.appending(to: hexBytes("3C 00 01 00 20")), e2eCRC: true)
        XCTAssertEqual(status.timeOffsetMinutes, 60)
        XCTAssertEqual(status.status, 0x20_0001)
        XCTAssertEqual(try CGMStatus.decode(hexBytes("3C 00 01 00 20"), e2eCRC: nil).crc, .absent)

        let runTime = try CGMSessionRunTime.decode(E2ECRC.appending(to: [0xA8, 0x00]), e2eCRC: nil)
        XCTAssertEqual(runTime.hours, 168)
        XCTAssertEqual(runTime.crc, .valid(E2ECRC.checksum([0xA8, 0x00])))
        XCTAssertThrowsError(try CGMSessionRunTime.decode(E2ECRC.appending(to: [0xA8, 0x00]), e2eCRC: false)) { error in
            XCTAssertEqual(
                error as? BLEValueError,
                .unexpectedLength(
                    characteristic: .cgmSessionRunTime, offset: 0, expected: [2], found: 4))
        }
        XCTAssertThrowsError(try CGMSessionRunTime.decode([0xA8], e2eCRC: nil))
    }

    func testOneBadRecordDoesNotHideItsNeighbours() throws {
        let good1 = E2ECRC.appending(to: hexBytes("08 00 79 00 3D 00"))
        var bad = E2ECRC.appending(to: hexBytes("08 00 77 00 3E 00"))
        bad[2] = 0x78  // the glucose changed after the CRC was computed
        let good2 = E2ECRC.appending(to: hexBytes("08 00 76 00 3F 00"))
        let value = good1 + bad + good2

        XCTAssertThrowsError(try CGMMeasurement.records(in: value, e2eCRC: true)) { error in
            XCTAssertEqual(
                error as? BLEValueError,
                .crcMismatch(
                    characteristic: .cgmMeasurement, offset: 14, carried: E2ECRC.checksum(hexBytes("08 00 77 00 3E 00")),
                    computed: E2ECRC.checksum(hexBytes("08 00 78 00 3E 00"))))
        }
        let results = CGMMeasurement.recordResults(in: value, e2eCRC: true)
        XCTAssertEqual(results.count, 3)
        XCTAssertEqual(try results[0].get().glucose.value, 121)
        XCTAssertThrowsError(try results[1].get())
        XCTAssertEqual(try results[2].get().timeOffsetMinutes, 63)
    }

    func testRecordFramingErrors() {
        func error(_ value: [UInt8], e2eCRC: Bool? = nil) -> BLEValueError? {
            do {
                _ = try CGMMeasurement.records(in: value, e2eCRC: e2eCRC)
                return nil
            } catch {
                return error
            }
        }
        XCTAssertEqual(error([]), .shortPayload(characteristic: .cgmMeasurement, field: "record size", offset: 0, needed: 1, available: 0))
        XCTAssertEqual(
            error(hexBytes("05 00 78 00 3C")),
            .invalidField(characteristic: .cgmMeasurement, field: "record size", offset: 0, reason: "is 5 (a record holds at least 6 bytes)"))
        // The second record claims 8 bytes but only 4 remain.
        XCTAssertEqual(
            error(hexBytes("06 00 78 00 3C 00 08 00 78 00")),
            .shortPayload(characteristic: .cgmMeasurement, field: "record of 8 bytes", offset: 6, needed: 8, available: 4))
        // Trend + quality need 10 bytes (12 with CRC); 11 fits neither.
        XCTAssertEqual(
            error(hexBytes("0B 03 78 00 3C 00 F1 FF 5F 00 00")),
            .unexpectedLength(characteristic: .cgmMeasurement, offset: 0, expected: [10, 12], found: 11))
        XCTAssertEqual(
            error(hexBytes("06 04 78 00 3C 00")),
            .reservedFlags(characteristic: .cgmMeasurement, offset: 1, flags: 0x04, reservedMask: 0x1C))
        XCTAssertEqual(error(hexBytes("06 00 78 00 3C 00"), e2eCRC: true), .missingCRC(characteristic: .cgmMeasurement, offset: 6))
        XCTAssertEqual(
            error(E2ECRC.appending(to: hexBytes("08 00 78 00 3C 00")), e2eCRC: false),
            .unexpectedLength(characteristic: .cgmMeasurement, offset: 0, expected: [6], found: 8))
    }

    func testSpecialConcentrationsAreKeptTyped() throws {
        let specials: [(UInt16, MedicalFloat)] = [
            (0x07FF, .notANumber), (0x0800, .notAtThisResolution), (0x07FE, .positiveInfinity), (0x0802, .negativeInfinity),
            (0x0801, .reserved),
        ]
        for (raw, expected) in specials {
            let record = E2ECRC.appending(to: [0x08, 0x00, UInt8(raw & 0xFF), UInt8(raw >> 8), 0x40, 0x00])
            let decoded = try CGMMeasurement.records(in: record, e2eCRC: true)
            XCTAssertEqual(decoded.first?.glucose, expected)
            XCTAssertNil(decoded.first?.glucose.value)
        }
    }
}
