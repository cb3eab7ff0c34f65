import Drivers
import TestSupport
import XCTest

/// RSC and CSC measurements, and speed/cadence across counter rollovers (gatt-xml rsc_measurement, csc_measurement).
final class SportSensorTests: XCTestCase {
    func testRSCWithStrideAndDistance() throws {
        // Running, 3.5 m/s (896/256), 168/min, stride 1.25 m, 10 km.
        let measurement = try RSCMeasurement.decode(hexBytes("07 80 03 A8 7D 00 A0 86 01 00"))
        XCTAssertEqual(measurement.speedRaw, 896)
        XCTAssertEqual(measurement.speedMetresPerSecond, 3.5)
        XCTAssertEqual(measurement.cadencePerMinute, 168)
        XCTAssertEqual(measurement.strideLengthMetres, 1.25)
        XCTAssertEqual(measurement.totalDistanceMetres, 10_000)
        XCTAssertTrue(measurement.isRunning)
    }

    func testRSCWalkingMinimal() throws {
        let measurement = try RSCMeasurement.decode(hexBytes("00 60 01 6E"))
        XCTAssertEqual(measurement.speedMetresPerSecond, 1.375)
        XCTAssertEqual(measurement.cadencePerMinute, 110)
        XCTAssertNil(measurement.strideLengthCentimetres)
        XCTAssertNil(measurement.totalDistanceDecimetres)
        XCTAssertFalse(measurement.isRunning)
        XCTAssertThrowsError(try RSCMeasurement.decode(hexBytes("02 60 01 6E 01 02 03"))) { error in
            XCTAssertEqual(
                error as? BLEValueError,
                .shortPayload(
                    characteristic: .rscMeasurement, field: "total distance", offset: 4, needed: 4, available: 3))
        }
        XCTAssertThrowsError(try RSCMeasurement.decode(hexBytes("08 60 01 6E")))
    }

    func testCSCBothRevolutionKinds() throws {
        let measurement = try CSCMeasurement.decode(hexBytes("03 10 00 00 00 00 04 05 00 00 08"))
        XCTAssertEqual(measurement.wheel, .init(cumulative: 16, lastEventTime: 1024))
        XCTAssertEqual(measurement.crank, .init(cumulative: 5, lastEventTime: 2048))
        XCTAssertEqual(try CSCMeasurement.decode(hexBytes("02 05 00 00 08")).wheel, nil)
        XCTAssertThrowsError(try CSCMeasurement.decode(hexBytes("01 10 00 00 00 00")))
        XCTAssertThrowsError(try CSCMeasurement.decode(hexBytes("04")))
    }

    func testSpeedAndCadenceBetweenTwoMeasurements() {
        let before = CSCMeasurement(wheel: .init(cumulative: 100, lastEventTime: 1000), crank: .init(cumulative: 50, lastEventTime: 1000))
        let after = CSCMeasurement(wheel: .init(cumulative: 104, lastEventTime: 2024), crank: .init(cumulative: 51, lastEventTime: 1768))
        let rates = CSCRateCalculator.rates(from: before, to: after)
        // 4 revolutions × 2.096 m in 1 s; 1 crank revolution in 0.75 s = 80 rpm.
        XCTAssertEqual(rates.speedMetresPerSecond!, 8.384, accuracy: 1e-12)
        XCTAssertEqual(rates.distanceMetres!, 8.384, accuracy: 1e-12)
        XCTAssertEqual(rates.cadenceRPM, 80)
    }

    func testCounterAndEventTimeRollover() {
        // Wheel: u32 counter wraps from 0xFFFFFFFE to 1 (3 revolutions); event time wraps 0xFE00 → 0x0200 (1024 ticks).
        let wheelBefore = CSCMeasurement(wheel: .init(cumulative: 0xFFFF_FFFE, lastEventTime: 0xFE00), crank: nil)
        let wheelAfter = CSCMeasurement(wheel: .init(cumulative: 1, lastEventTime: 0x0200), crank: nil)
        let wheel = CSCRateCalculator.rates(from: wheelBefore, to: wheelAfter, wheelCircumferenceMetres: 2.0)
        XCTAssertEqual(wheel.speedMetresPerSecond, 6.0)
        XCTAssertEqual(wheel.distanceMetres, 6.0)
        XCTAssertNil(wheel.cadenceRPM)

        // Crank: u16 counter wraps 0xFFFF → 0x0001 (2 revolutions) while its time wraps 0xFC00 → 0x0400 (2048 ticks = 2 s): 60 rpm.
        let crankBefore = CSCMeasurement(wheel: nil, crank: .init(cumulative: 0xFFFF, lastEventTime: 0xFC00))
        let crankAfter = CSCMeasurement(wheel: nil, crank: .init(cumulative: 0x0001, lastEventTime: 0x0400))
        XCTAssertEqual(CSCRateCalculator.rates(from: crankBefore, to: crankAfter).cadenceRPM, 60)
    }

    func testNoNewEventGivesNoRate() {
        let same = CSCMeasurement(wheel: .init(cumulative: 7, lastEventTime: 500), crank: .init(cumulative: 3, lastEventTime: 900))
        let rates = CSCRateCalculator.rates(from: same, to: same)
        XCTAssertNil(rates.speedMetresPerSecond)
        XCTAssertEqual(rates.distanceMetres, 0)
        XCTAssertNil(rates.cadenceRPM)
    }

    func testCalculatorKeepsThePreviousMeasurement() {
        var calculator = CSCRateCalculator()
        XCTAssertEqual(calculator.wheelCircumferenceMetres, 2.096)
        let first = calculator.add(CSCMeasurement(wheel: nil, crank: .init(cumulative: 10, lastEventTime: 0)))
        XCTAssertEqual(first, CSCRates(speedMetresPerSecond: nil, distanceMetres: nil, cadenceRPM: nil))
        XCTAssertEqual(
            calculator.add(CSCMeasurement(wheel: nil, crank: .init(cumulative: 11, lastEventTime: 683))).cadenceRPM!, 89.956, accuracy: 0.001)
        XCTAssertEqual(calculator.add(CSCMeasurement(wheel: nil, crank: .init(cumulative: 13, lastEventTime: 1707))).cadenceRPM, 120)
    }
}
