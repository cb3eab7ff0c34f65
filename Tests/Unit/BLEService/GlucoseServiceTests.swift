import Drivers
import Foundation
import Model
import TestSupport
import XCTest

/// Glucose Measurement and Glucose Measurement Context (Glucose Service 1.0).
final class GlucoseServiceTests: XCTestCase {
    func testMeasurementInKilogramsPerLitre() throws {
        let measurement = try GlucoseMeasurement.decode(hexBytes("1B 05 00 E8 07 03 0A 08 0F 00 FB FF 69 B0 11 01 00"))
        XCTAssertEqual(measurement.sequenceNumber, 5)
        XCTAssertEqual(measurement.baseTime, GATTDateTime(year: 2024, month: 3, day: 10, hours: 8, minutes: 15, seconds: 0))
        XCTAssertEqual(measurement.timeOffset, .minutes(-5))
        XCTAssertEqual(measurement.concentration?.value, .finite(mantissa: 105, exponent: -5))
        XCTAssertEqual(measurement.concentration?.unit, .kilogramsPerLitre)
        XCTAssertEqual(measurement.concentration?.milligramsPerDecilitre, 105)
        XCTAssertEqual(measurement.concentration?.displayed?.unit, .milligramsPerDeciliter)
        XCTAssertEqual(measurement.sample, GlucoseSample(type: 1, location: 1))
        XCTAssertEqual(measurement.sample?.description, "capillary whole blood, finger")
        XCTAssertEqual(measurement.sensorStatus, [.batteryLow])
        XCTAssertTrue(measurement.contextFollows)
        XCTAssertEqual(measurement.wallClockSeconds, wall("2024-03-10T08:10:00Z"))
    }

    func testMeasurementInMolesPerLitre() throws {
        let measurement = try GlucoseMeasurement.decode(hexBytes("06 01 00 E8 07 03 0A 08 0F 00 3A C0 11"))
        let displayed = try XCTUnwrap(measurement.concentration?.displayed)
        XCTAssertEqual(displayed.value, 5.8)
        XCTAssertEqual(displayed.unit, .millimolesPerLiter)
        XCTAssertEqual(measurement.concentration?.milligramsPerDecilitre, 5.8 * GlucoseUnit.mgdlPerMmol)
        XCTAssertNil(measurement.timeOffset)
        XCTAssertFalse(measurement.contextFollows)
        XCTAssertEqual(measurement.wallClockSeconds, wall("2024-03-10T08:15:00Z"))
    }

    func testTimeOffsetSentinelsAndSpecialConcentration() throws {
        let overrun = try GlucoseMeasurement.decode(hexBytes("01 02 00 E8 07 03 0A 08 0F 00 FF 7F"))
        XCTAssertEqual(overrun.timeOffset, .overrun)
        XCTAssertNil(overrun.wallClockSeconds)
        XCTAssertEqual(try GlucoseMeasurement.decode(hexBytes("01 02 00 E8 07 03 0A 08 0F 00 00 80")).timeOffset, .underrun)
        let nan = try GlucoseMeasurement.decode(hexBytes("02 03 00 E8 07 03 0A 08 0F 00 FF 07 11"))
        XCTAssertEqual(nan.concentration?.value, .notANumber)
        XCTAssertNil(nan.concentration?.milligramsPerDecilitre)
        // An unknown base date gives no time.
        XCTAssertNil(try GlucoseMeasurement.decode(hexBytes("00 04 00 00 00 00 00 08 0F 00")).wallClockSeconds)
    }

    func testMeasurementErrors() {
        XCTAssertThrowsError(try GlucoseMeasurement.decode(hexBytes("02 01 00 E8 07 03 0A 08 0F 00 69"))) { error in
            XCTAssertEqual(
                error as? BLEValueError,
                .shortPayload(
                    characteristic: .glucoseMeasurement, field: "glucose concentration", offset: 10, needed: 2, available: 1))
        }
        XCTAssertThrowsError(try GlucoseMeasurement.decode(hexBytes("20 01 00 E8 07 03 0A 08 0F 00"))) { error in
            XCTAssertEqual(
                error as? BLEValueError,
                .reservedFlags(
                    characteristic: .glucoseMeasurement, offset: 0, flags: 0x20, reservedMask: 0xE0))
        }
        XCTAssertThrowsError(try GlucoseMeasurement.decode(hexBytes("00 01 00 E8 07 02 1E 08 0F 00"))) { error in
            guard case .invalidField(.glucoseMeasurement, "base time", 3, _)? = error as? BLEValueError else {
                return XCTFail("\(error)")
            }
        }
    }

    func testContextWithEveryField() throws {
        let context = try GlucoseMeasurementContext.decode(hexBytes("7F 05 00 01 2D D0 01 51 08 07 3C 01 04 B0 44 F0"))
        XCTAssertEqual(context.sequenceNumber, 5)
        XCTAssertNil(context.extendedFlags)
        XCTAssertEqual(context.carbohydrate?.id, 1)
        XCTAssertEqual(context.carbohydrate?.grams, 45)
        XCTAssertEqual(context.meal, 1)
        XCTAssertEqual(context.tester, 1)
        XCTAssertEqual(context.health, 5)
        XCTAssertEqual(context.exercise, .init(durationSeconds: 1800, intensityPercent: 60))
        XCTAssertEqual(context.exercise?.duration, 1800)
        XCTAssertEqual(context.medication, .init(id: 1, amount: .finite(mantissa: 4, exponent: -5), inLitres: true))
        XCTAssertEqual(context.hbA1c?.value, 6.8)
    }

    func testContextExtendedFlagsAndExerciseOverrun() throws {
        let extended = try GlucoseMeasurementContext.decode(hexBytes("88 06 00 00 10 0E 32"))
        XCTAssertEqual(extended.extendedFlags, 0)
        XCTAssertEqual(extended.exercise, .init(durationSeconds: 3600, intensityPercent: 50))
        let overrun = try GlucoseMeasurementContext.decode(hexBytes("08 07 00 FF FF 64"))
        XCTAssertNil(overrun.exercise?.duration)
        XCTAssertEqual(overrun.exercise?.intensityPercent, 100)
        XCTAssertThrowsError(try GlucoseMeasurementContext.decode(hexBytes("08 07 00 FF FF"))) { error in
            XCTAssertEqual(
                error as? BLEValueError,
                .shortPayload(
                    characteristic: .glucoseMeasurementContext, field: "exercise intensity", offset: 5, needed: 1, available: 0))
        }
    }

    func testContextsLinkToMeasurementsBySequenceNumber() throws {
        let five = try GlucoseMeasurement.decode(hexBytes("1B 05 00 E8 07 03 0A 08 0F 00 FB FF 69 B0 11 01 00"))
        let six = try GlucoseMeasurement.decode(hexBytes("02 06 00 E8 07 03 0A 09 00 00 6E B0 11"))
        let contextFive = try GlucoseMeasurementContext.decode(hexBytes("08 05 00 08 07 3C"))
        let contextNine = try GlucoseMeasurementContext.decode(hexBytes("02 09 00 03"))
        let linked = GlucoseRecord.link(measurements: [five, six], contexts: [contextNine, contextFive])
        XCTAssertEqual(linked.records.map(\.measurement.sequenceNumber), [5, 6])
        XCTAssertEqual(linked.records[0].context, contextFive)
        XCTAssertEqual(linked.records[0].context?.exercise?.durationSeconds, 1800)
        XCTAssertNil(linked.records[1].context)
        XCTAssertEqual(linked.unmatchedContexts, [contextNine])
    }

    private func wall(_ text: String) -> Int64 {
        Int64(ISO8601DateFormatter().date(from: text)!.timeIntervalSince1970)
    }
}
