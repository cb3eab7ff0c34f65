import Drivers
import TestSupport
import XCTest

/// Fitness Machine Feature, Treadmill Data and Indoor Bike Data, flag by flag.
final class FitnessMachineTests: XCTestCase {
    func testFeatureBitFields() throws {
        let feature = try FitnessMachineFeature.decode(hexBytes("0D 16 00 00 03 00 00 00"))
        XCTAssertEqual(
            feature.machine, [.averageSpeed, .totalDistance, .inclination, .expendedEnergy, .heartRateMeasurement, .elapsedTime])
        XCTAssertEqual(feature.targetSettings, [.speed, .inclination])
        XCTAssertThrowsError(try FitnessMachineFeature.decode(hexBytes("0D 16 00 00 03 00 00")))
    }

    func testTreadmillSpeedOnly() throws {
        let data = try TreadmillData.decode(hexBytes("00 00 E8 03"))
        XCTAssertEqual(data.instantaneousSpeedKilometresPerHour, 10.0)
        XCTAssertFalse(data.moreData)
        XCTAssertNil(data.totalDistanceMetres)
    }

    func testTreadmillManyFields() throws {
        let data = try TreadmillData.decode(hexBytes("9C 05 20 03 D2 04 00 F1 FF 00 00 19 00 00 00 78 00 58 02 0A 82 58 02"))
        XCTAssertEqual(data.instantaneousSpeedKilometresPerHour, 8.0)
        XCTAssertEqual(data.totalDistanceMetres, 1234)
        XCTAssertEqual(data.inclinationPercent, -1.5)
        XCTAssertEqual(data.rampAngleSetting, 0)
        XCTAssertEqual(data.positiveElevationGain, 25)
        XCTAssertEqual(data.negativeElevationGain, 0)
        XCTAssertEqual(data.energy, FitnessMachineEnergy(totalKilocalories: 120, perHourKilocalories: 600, perMinuteKilocalories: 10))
        XCTAssertEqual(data.heartRate, 130)
        XCTAssertEqual(data.elapsedTimeSeconds, 600)
        XCTAssertNil(data.instantaneousPace)
    }

    func testTreadmillForceAndPowerAreSigned() throws {
        let data = try TreadmillData.decode(hexBytes("00 10 E8 03 F6 FF C8 00"))
        XCTAssertEqual(data.forceOnBeltNewtons, -10)
        XCTAssertEqual(data.powerOutputWatts, 200)
    }

    func testTreadmillMoreDataOmitsTheSpeed() throws {
        let data = try TreadmillData.decode(hexBytes("01 04 58 02"))
        XCTAssertTrue(data.moreData)
        XCTAssertNil(data.instantaneousSpeed)
        XCTAssertEqual(data.elapsedTimeSeconds, 600)
    }

    /// The pace width is disputed (u8 per the SIG XML, two bytes in some decoders); the length settles it.
    func testTreadmillPaceWidthFollowsTheLength() throws {
        let narrow = try TreadmillData.decode(hexBytes("60 00 E8 03 64 5A"))
        XCTAssertEqual(narrow.paceWidth, 1)
        XCTAssertEqual(narrow.instantaneousPace, 100)
        XCTAssertEqual(narrow.averagePace, 90)
        let wide = try TreadmillData.decode(hexBytes("20 01 E8 03 64 00 8C"))
        XCTAssertEqual(wide.paceWidth, 2)
        XCTAssertEqual(wide.instantaneousPace, 100)
        XCTAssertEqual(wide.heartRate, 140)
        XCTAssertThrowsError(try TreadmillData.decode(hexBytes("20 00 E8 03 64 00 00"))) { error in
            XCTAssertEqual(
                error as? BLEValueError,
                .unexpectedLength(
                    characteristic: .treadmillData, offset: 4, expected: [5, 6], found: 7))
        }
    }

    func testTreadmillReservedFlagsAndShortValues() {
        XCTAssertThrowsError(try TreadmillData.decode(hexBytes("00 20 E8 03"))) { error in
            XCTAssertEqual(
                error as? BLEValueError,
                .reservedFlags(
                    characteristic: .treadmillData, offset: 0, flags: 0x2000, reservedMask: 0xE000))
        }
        XCTAssertThrowsError(try TreadmillData.decode(hexBytes("04 00 E8 03 D2 04"))) { error in
            XCTAssertEqual(
                error as? BLEValueError,
                .shortPayload(
                    characteristic: .treadmillData, field: "total distance", offset: 4, needed: 3, available: 2))
        }
    }

    func testIndoorBikeCadenceAndPower() throws {
        let data = try IndoorBikeData.decode(hexBytes("44 00 C4 09 B4 00 C8 00"))
        XCTAssertEqual(data.instantaneousSpeedKilometresPerHour, 25.0)
        XCTAssertEqual(data.instantaneousCadenceRPM, 90.0)
        XCTAssertEqual(data.instantaneousPowerWatts, 200)
        XCTAssertNil(data.resistanceLevel)
    }

    /// Resistance level: sint16 in FTMS 1.0-era implementations, u8 in the GSS-derived decoder.
    func testIndoorBikeResistanceWidthFollowsTheLength() throws {
        let wide = try IndoorBikeData.decode(hexBytes("64 00 C4 09 B4 00 F6 FF C8 00"))
        XCTAssertEqual(wide.resistanceWidth, 2)
        XCTAssertEqual(wide.resistanceLevel, -10)
        XCTAssertEqual(wide.instantaneousPowerWatts, 200)
        let narrow = try IndoorBikeData.decode(hexBytes("64 00 C4 09 B4 00 05 C8 00"))
        XCTAssertEqual(narrow.resistanceWidth, 1)
        XCTAssertEqual(narrow.resistanceLevel, 5)
        XCTAssertEqual(narrow.instantaneousPowerWatts, 200)
        XCTAssertThrowsError(try IndoorBikeData.decode(hexBytes("64 00 C4 09 B4 00 C8 00"))) { error in
            XCTAssertEqual(
                error as? BLEValueError,
                .unexpectedLength(
                    characteristic: .indoorBikeData, offset: 6, expected: [10, 9], found: 8))
        }
    }

    func testIndoorBikeEnergyHeartRateAndTime() throws {
        let data = try IndoorBikeData.decode(hexBytes("00 0B E8 03 0A 00 2C 01 01 8C 3C 00"))
        XCTAssertEqual(data.energy, FitnessMachineEnergy(totalKilocalories: 10, perHourKilocalories: 300, perMinuteKilocalories: 1))
        XCTAssertEqual(data.heartRate, 140)
        XCTAssertEqual(data.elapsedTimeSeconds, 60)
        XCTAssertThrowsError(try IndoorBikeData.decode(hexBytes("00 0B E8 03 0A 00 2C 01 01 8C 3C 00 00")))
        XCTAssertThrowsError(try IndoorBikeData.decode(hexBytes("00 80 E8 03")))
    }
}
