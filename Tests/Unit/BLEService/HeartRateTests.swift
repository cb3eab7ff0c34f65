import Drivers
import TestSupport
import XCTest

/// Heart Rate Measurement and Body Sensor Location edge cases (Heart Rate Service 1.0, §3.1–§3.2).
final class HeartRateTests: XCTestCase {
    func testRRIntervalsAreIn1024thsOfASecond() throws {
        let measurement = try HeartRateMeasurement.decode(hexBytes("16 4B 34 03 16 03"))
        XCTAssertEqual(measurement.rrIntervals, [820, 790])
        XCTAssertEqual(measurement.rrIntervalsMilliseconds, [800.78125, 771.484375])
        XCTAssertEqual(try HeartRateMeasurement.decode(hexBytes("16 48 00 04")).rrIntervalsMilliseconds, [1000])
        XCTAssertEqual(try HeartRateMeasurement.decode(hexBytes("10 48 00 02")).rrIntervalsMilliseconds, [500])
        XCTAssertEqual(try HeartRateMeasurement.decode(hexBytes("10 48 01 00")).rrIntervalsMilliseconds, [0.9765625])
    }

    func testUInt16FormatEnergyAndManyIntervals() throws {
        // u16 heart rate 300, energy 0xFFFF kJ, eight RR-intervals.
        let value = hexBytes("19 2C 01 FF FF") + Array(repeating: [0x00, 0x02], count: 8).flatMap { $0 }
        let measurement = try HeartRateMeasurement.decode(value)
        XCTAssertEqual(measurement.beatsPerMinute, 300)
        XCTAssertTrue(measurement.isUInt16)
        XCTAssertEqual(measurement.energyExpendedKilojoules, 65535)
        XCTAssertEqual(measurement.rrIntervals.count, 8)
        XCTAssertEqual(measurement.sensorContact, .notSupported)
    }

    func testContactBits() throws {
        XCTAssertEqual(try HeartRateMeasurement.decode([0x00, 60]).sensorContact, .notSupported)
        XCTAssertEqual(try HeartRateMeasurement.decode([0x02, 60]).sensorContact, .notSupported)
        XCTAssertEqual(try HeartRateMeasurement.decode([0x04, 60]).sensorContact, .notDetected)
        XCTAssertEqual(try HeartRateMeasurement.decode([0x06, 60]).sensorContact, .detected)
    }

    func testRRFlagWithoutIntervalsIsAnEmptyList() throws {
        XCTAssertEqual(try HeartRateMeasurement.decode([0x10, 70]).rrIntervals, [])
    }

    func testShortValuesNameTheMissingField() {
        XCTAssertThrowsError(try HeartRateMeasurement.decode([])) { error in
            XCTAssertEqual(
                error as? BLEValueError,
                .shortPayload(
                    characteristic: .heartRateMeasurement, field: "flags", offset: 0, needed: 1, available: 0))
        }
        XCTAssertThrowsError(try HeartRateMeasurement.decode([0x01, 0x48])) { error in
            XCTAssertEqual(
                error as? BLEValueError,
                .shortPayload(
                    characteristic: .heartRateMeasurement, field: "heart rate (u16)", offset: 1, needed: 2, available: 1))
            XCTAssertEqual(
                (error as? BLEValueError)?.description,
                "Heart Rate Measurement (0x2A37) at byte 1: the value ends before its heart rate (u16) (2 bytes needed, 1 left)")
        }
        XCTAssertThrowsError(try HeartRateMeasurement.decode([0x08, 0x48, 0x10])) { error in
            XCTAssertEqual((error as? BLEValueError)?.offset, 2)
        }
    }

    func testOddRRBytesAndTrailingBytesAreRejected() {
        XCTAssertThrowsError(try HeartRateMeasurement.decode(hexBytes("16 48 00 04 01"))) { error in
            guard case .unexpectedLength(.heartRateMeasurement, 4, _, 5)? = error as? BLEValueError else {
                return XCTFail("\(error)")
            }
        }
        XCTAssertThrowsError(try HeartRateMeasurement.decode(hexBytes("06 48 00"))) { error in
            XCTAssertEqual(
                error as? BLEValueError,
                .unexpectedLength(
                    characteristic: .heartRateMeasurement, offset: 2, expected: [2], found: 3))
        }
    }

    func testReservedFlagBitsAreRejected() {
        XCTAssertThrowsError(try HeartRateMeasurement.decode([0x20, 60])) { error in
            XCTAssertEqual(
                error as? BLEValueError,
                .reservedFlags(
                    characteristic: .heartRateMeasurement, offset: 0, flags: 0x20, reservedMask: 0xE0))
        }
    }

    func testBodySensorLocations() throws {
        let names = try (0...6).map { try BodySensorLocation.decode([UInt8($0)]).description }
        XCTAssertEqual(names, ["other", "chest", "wrist", "finger", "hand", "ear lobe", "foot"])
        XCTAssertEqual(try BodySensorLocation.decode([7]), .reserved(7))
        XCTAssertThrowsError(try BodySensorLocation.decode([1, 0]))
        XCTAssertThrowsError(try BodySensorLocation.decode([]))
    }
}
