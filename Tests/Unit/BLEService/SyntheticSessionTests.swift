import Drivers
import Foundation
import TestSupport
import XCTest

/// Every decoded characteristic value listed in fixtures/ble/synthetic/EXPECTED.md,
/// decoded from the exact ATT bytes of both synthetic captures (Android H4 and btmon monitor).
/// The ATT PDUs come from the project's btsnoop reader (`LECapture`), through `SyntheticCapture`.
final class SyntheticSessionTests: XCTestCase {
    static let heartRateHandle: UInt16 = 0x0012
    static let bodySensorLocationHandle: UInt16 = 0x0015
    static let controlPointHandle: UInt16 = 0x0017
    static let cgmMeasurementHandle: UInt16 = 0x0022
    static let cgmFeatureHandle: UInt16 = 0x0025
    static let sessionStartTimeHandle: UInt16 = 0x0027
    static let racpHandle: UInt16 = 0x0029

    struct HeartRateRow: Equatable {
        var time: String
        var bpm: Int
        var isUInt16: Bool
        var contactBits: UInt8
        var energy: Int?
        var rr: [UInt16]
    }

    struct CGMRow: Equatable {
        var size: UInt8
        var flags: UInt8
        var glucose: MedicalFloat
        var offset: UInt16
        var trend: Double?
        var quality: Double?
        var annunciation: [CGMAnnunciationOctet]
        var crcValid: Bool
        var readingTime: String
    }

    /// Everything this suite decodes from one capture, so the two formats can be compared whole.
    struct Session: Equatable {
        var heartRates: [HeartRateRow]
        var bodySensorLocation: BodySensorLocation
        var feature: CGMFeature
        var sessionStart: CGMSessionStartTime
        var cgmNotifications: [(time: String, records: [CGMRow])]
        var racpWrites: [[UInt8]]
        var racpIndications: [(time: String, response: RACPResponse)]
        var controlPointWrites: [[UInt8]]

        static func == (a: Session, b: Session) -> Bool {
            a.heartRates == b.heartRates && a.bodySensorLocation == b.bodySensorLocation && a.feature == b.feature
                && a.sessionStart == b.sessionStart && a.racpWrites == b.racpWrites
                && a.controlPointWrites == b.controlPointWrites
                && a.cgmNotifications.map(\.time) == b.cgmNotifications.map(\.time)
                && a.cgmNotifications.map(\.records) == b.cgmNotifications.map(\.records)
                && a.racpIndications.map(\.time) == b.racpIndications.map(\.time)
                && a.racpIndications.map(\.response) == b.racpIndications.map(\.response)
        }
    }

    func decodeSession(_ path: String) throws -> Session {
        let capture = try SyntheticCapture.load(path)
        let heartRates = try capture.received(0x1B, on: Self.heartRateHandle).map { pdu in
            let hr = try HeartRateMeasurement.decode(pdu.value)
            return HeartRateRow(
                time: isoMillis(pdu.unixMicros), bpm: hr.beatsPerMinute, isUInt16: hr.isUInt16, contactBits: hr.contactBits,
                energy: hr.energyExpendedKilojoules, rr: hr.rrIntervals)
        }
        let location = try BodySensorLocation.decode(try XCTUnwrap(capture.readResponse(for: Self.bodySensorLocationHandle)))
        let feature = try CGMFeature.decode(try XCTUnwrap(capture.readResponse(for: Self.cgmFeatureHandle)))
        let start = try CGMSessionStartTime.decode(
            try XCTUnwrap(capture.readResponse(for: Self.sessionStartTimeHandle)), e2eCRC: feature.supportsE2ECRC)
        let notifications = try capture.received(0x1B, on: Self.cgmMeasurementHandle).map { pdu in
            let records = try CGMMeasurement.records(in: pdu.value, e2eCRC: feature.supportsE2ECRC).map { record in
                CGMRow(
                    size: record.size, flags: record.flags, glucose: record.glucose, offset: record.timeOffsetMinutes,
                    trend: record.trend?.value, quality: record.quality?.value, annunciation: record.annunciation,
                    crcValid: record.crc != .absent,
                    readingTime: isoMillis(Int64(start.time(ofOffsetMinutes: record.timeOffsetMinutes)!.timeIntervalSince1970) * 1_000_000))
            }
            return (isoMillis(pdu.unixMicros), records)
        }
        let indications = try capture.received(0x1D, on: Self.racpHandle).map { pdu in
            (isoMillis(pdu.unixMicros), try RACPResponse.decode(pdu.value))
        }
        return Session(
            heartRates: heartRates, bodySensorLocation: location, feature: feature, sessionStart: start,
            cgmNotifications: notifications, racpWrites: capture.writes(to: Self.racpHandle), racpIndications: indications,
            controlPointWrites: capture.writes(to: Self.controlPointHandle))
    }

    func testHeartRateMeasurements() throws {
        for path in [SyntheticCapture.android, SyntheticCapture.btmon] {
            let session = try decodeSession(path)
            XCTAssertEqual(
                session.heartRates,
                [
                    HeartRateRow(time: "2024-01-15T08:00:00.449Z", bpm: 72, isUInt16: false, contactBits: 3, energy: nil, rr: [1024]),
                    HeartRateRow(time: "2024-01-15T08:00:01.449Z", bpm: 75, isUInt16: false, contactBits: 3, energy: nil, rr: [820, 790]),
                    HeartRateRow(time: "2024-01-15T08:00:02.449Z", bpm: 90, isUInt16: false, contactBits: 3, energy: 16, rr: [683]),
                    HeartRateRow(time: "2024-01-15T08:00:03.449Z", bpm: 180, isUInt16: true, contactBits: 3, energy: nil, rr: []),
                    HeartRateRow(time: "2024-01-15T08:00:04.449Z", bpm: 0, isUInt16: false, contactBits: 2, energy: nil, rr: []),
                    HeartRateRow(time: "2024-01-15T08:00:05.449Z", bpm: 101, isUInt16: false, contactBits: 3, energy: nil, rr: []),
                    HeartRateRow(time: "2024-01-15T08:00:06.449Z", bpm: 88, isUInt16: false, contactBits: 0, energy: nil, rr: []),
                ], path)
        }
    }

    /// RR-intervals in the capture, converted: 1024 → 1.000 s, 683 → 0.667 s (EXPECTED.md's rounding).
    func testRRIntervalSeconds() throws {
        let capture = try SyntheticCapture.load(SyntheticCapture.android)
        let intervals = try capture.received(0x1B, on: Self.heartRateHandle)
            .flatMap { try HeartRateMeasurement.decode($0.value).rrIntervalsMilliseconds }
        XCTAssertEqual(intervals.map { $0.rounded() / 1000 }, [1.0, 0.801, 0.771, 0.667])
        XCTAssertEqual(intervals, [1000, 800.78125, 771.484375, 666.9921875])
    }

    func testBodySensorLocationAndHeartRateControlPoint() throws {
        for path in [SyntheticCapture.android, SyntheticCapture.btmon] {
            let session = try decodeSession(path)
            XCTAssertEqual(session.bodySensorLocation, .chest, path)
            XCTAssertEqual(session.controlPointWrites, [HeartRateControlPoint.resetEnergyExpended], path)
        }
    }

    func testCGMFeatureAndSessionStartTime() throws {
        for path in [SyntheticCapture.android, SyntheticCapture.btmon] {
            let session = try decodeSession(path)
            XCTAssertEqual(session.feature.features.rawValue, 0x019000, path)
            XCTAssertEqual(session.feature.features, [.e2eCRC, .trendInformation, .quality], path)
            XCTAssertEqual(session.feature.sample.type, 9, path)
            XCTAssertEqual(session.feature.sample.typeName, "interstitial fluid", path)
            XCTAssertEqual(session.feature.sample.location, 5, path)
            XCTAssertEqual(session.feature.crc, .valid(0x5CC4), path)

            let start = session.sessionStart
            XCTAssertEqual(start.localTime.description, "2024-01-15T07:00:00", path)
            XCTAssertEqual(start.timeZoneQuarterHours, 4, path)
            XCTAssertEqual(start.dstOffset, .standardTime, path)
            XCTAssertEqual(start.crc, .valid(0x8DB1), path)
            XCTAssertEqual(isoMillis(Int64(try XCTUnwrap(start.utcStart).timeIntervalSince1970) * 1_000_000), "2024-01-15T06:00:00.000Z")
        }
    }

    func testCGMMeasurements() throws {
        func row(
            _ size: UInt8, _ flags: UInt8, _ glucose: MedicalFloat, _ offset: UInt16, trend: Double? = nil, quality: Double? = nil,
            octets: [CGMAnnunciationOctet] = [], at time: String
        ) -> CGMRow {
            CGMRow(
                size: size, flags: flags, glucose: glucose, offset: offset, trend: trend, quality: quality, annunciation: octets,
                crcValid: true, readingTime: time)
        }
        for path in [SyntheticCapture.android, SyntheticCapture.btmon] {
            let session = try decodeSession(path)
            XCTAssertEqual(
                session.cgmNotifications.map(\.time),
                [
                    "2024-01-15T08:00:06.749Z", "2024-01-15T08:00:07.749Z", "2024-01-15T08:00:08.749Z",
                    "2024-01-15T08:00:09.285Z", "2024-01-15T08:00:09.290Z",
                ], path)
            XCTAssertEqual(
                session.cgmNotifications.map(\.records),
                [
                    [row(12, 0x03, .finite(mantissa: 120, exponent: 0), 60, trend: -1.5, quality: 95, at: "2024-01-15T07:00:00.000Z")],
                    [
                        row(8, 0x00, .finite(mantissa: 121, exponent: 0), 61, at: "2024-01-15T07:01:00.000Z"),
                        row(8, 0x00, .finite(mantissa: 119, exponent: 0), 62, at: "2024-01-15T07:02:00.000Z"),
                        row(12, 0x03, .finite(mantissa: 118, exponent: 0), 63, trend: -2, quality: 90, at: "2024-01-15T07:03:00.000Z"),
                    ],
                    [row(9, 0x20, .notANumber, 64, octets: [CGMAnnunciationOctet(flagBit: 5, raw: 0x02)], at: "2024-01-15T07:04:00.000Z")],
                    [row(8, 0x00, .finite(mantissa: 110, exponent: 0), 10, at: "2024-01-15T06:10:00.000Z")],
                    [row(8, 0x00, .finite(mantissa: 1120, exponent: -1), 15, at: "2024-01-15T06:15:00.000Z")],
                ], path)
            let glucose = session.cgmNotifications.flatMap(\.records).map(\.glucose.value)
            XCTAssertEqual(glucose, [120, 121, 119, 118, nil, 110, 112.0], path)
        }
    }

    /// The split notification (31-byte ATT PDU over two ACL packets) holds three records, each with a valid CRC.
    func testSplitNotificationCRCs() throws {
        let capture = try SyntheticCapture.load(SyntheticCapture.android)
        let split = try XCTUnwrap(capture.received(0x1B, on: Self.cgmMeasurementHandle).dropFirst().first)
        XCTAssertEqual(split.bytes.count, 31)
        let records = try CGMMeasurement.records(in: split.value, e2eCRC: true)
        XCTAssertEqual(records.map(\.crc), [.valid(0x8CD4), .valid(0x08FE), .valid(0x418D)])
    }

    func testRACPRequestsAndResponses() throws {
        for path in [SyntheticCapture.android, SyntheticCapture.btmon] {
            let session = try decodeSession(path)
            XCTAssertEqual(
                session.racpWrites,
                [
                    RACPRequest.reportNumberOfStoredRecords(.all).bytes, RACPRequest.reportStoredRecords(.all).bytes,
                ], path)
            XCTAssertEqual(session.racpIndications.map(\.time), ["2024-01-15T08:00:09.261Z", "2024-01-15T08:00:09.295Z"], path)
            XCTAssertEqual(
                session.racpIndications.map(\.response),
                [
                    .numberOfStoredRecords(2),
                    .responseCode(requestOpCode: RACPOpCode.reportStoredRecords.rawValue, code: .success),
                ], path)
            // The stored records arrive between the "report all" write and its response: as many as counted.
            let stored = session.cgmNotifications.filter { $0.time > "2024-01-15T08:00:09.273Z" && $0.time < "2024-01-15T08:00:09.295Z" }
            XCTAssertEqual(stored.flatMap(\.records).count, 2, path)
        }
    }

    func testBothCaptureFormatsDecodeIdentically() throws {
        XCTAssertEqual(try decodeSession(SyntheticCapture.android), try decodeSession(SyntheticCapture.btmon))
    }
}
