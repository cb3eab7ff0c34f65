import Drivers
import XCTest

/// IEEE 11073-20601 SFLOAT/FLOAT, against the examples of HL7/phd MderFLOATsandSFLOATs
/// and Nordic's CGM tests, and the special words of Wireshark ftype-ieee-11073-float.c.
final class MedicalFloatTests: XCTestCase {
    func testSFLOATExamplesFromHL7AndNordic() {
        let cases: [(UInt16, Int32, Int8, Double)] = [
            (0x0002, 2, 0, 2), (0xF014, 20, -1, 2.0), (0xE0C8, 200, -2, 2.00), (0x1002, 2, 1, 20),
            (0x04D2, 1234, 0, 1234), (0x0B2E, -1234, 0, -1234), (0xE4D2, 1234, -2, 12.34),
            (0xF002, 2, -1, 0.2), (0xF3E5, 997, -1, 99.7), (0xFFF1, -15, -1, -1.5), (0xF460, 1120, -1, 112.0),
            (0x0000, 0, 0, 0),
        ]
        for (raw, mantissa, exponent, value) in cases {
            let decoded = MedicalFloat(sfloat: raw)
            XCTAssertEqual(decoded, .finite(mantissa: mantissa, exponent: exponent), "0x\(String(raw, radix: 16))")
            XCTAssertEqual(decoded.value, value, "0x\(String(raw, radix: 16))")
            XCTAssertTrue(decoded.isFinite)
        }
        // Same number, different resolution: the representation is kept.
        XCTAssertNotEqual(MedicalFloat(sfloat: 0x0002), MedicalFloat(sfloat: 0xF014))
    }

    func testSFLOATSpecialValuesAreNotNumbers() {
        let specials: [(UInt16, MedicalFloat, String)] = [
            (0x07FF, .notANumber, "NaN"), (0x0800, .notAtThisResolution, "NRes"), (0x07FE, .positiveInfinity, "+INF"),
            (0x0802, .negativeInfinity, "-INF"), (0x0801, .reserved, "reserved"),
        ]
        for (raw, expected, text) in specials {
            let decoded = MedicalFloat(sfloat: raw)
            XCTAssertEqual(decoded, expected)
            XCTAssertNil(decoded.value)
            XCTAssertFalse(decoded.isFinite)
            XCTAssertEqual(decoded.description, text)
        }
    }

    func testSFLOATEdgesAroundTheSpecialWords() {
        // The largest and smallest finite mantissas at exponent 0 sit next to the special words.
        XCTAssertEqual(MedicalFloat(sfloat: 0x07FD), .finite(mantissa: 2045, exponent: 0))
        XCTAssertEqual(MedicalFloat(sfloat: 0x0803), .finite(mantissa: -2045, exponent: 0))
        // Special words are defined with exponent 0 only: the same mantissas scaled are numbers.
        XCTAssertEqual(MedicalFloat(sfloat: 0x17FF), .finite(mantissa: 2047, exponent: 1))
        XCTAssertEqual(MedicalFloat(sfloat: 0xF800).value, -204.8)
        // Exponent range −8…+7.
        XCTAssertEqual(MedicalFloat(sfloat: 0x7001).value, 10_000_000)
        XCTAssertEqual(MedicalFloat(sfloat: 0x8001).value, 1e-8)
        XCTAssertEqual(MedicalFloat(sfloat: 0xFFFF), .finite(mantissa: -1, exponent: -1))
        XCTAssertEqual(MedicalFloat(sfloat: 0xE4D2).description, "1234e-2")
    }

    func testFLOATValuesAndSpecials() {
        XCTAssertEqual(MedicalFloat(float: 0xFF00_04D2), .finite(mantissa: 1234, exponent: -1))
        XCTAssertEqual(MedicalFloat(float: 0xFF00_04D2).value, 123.4)
        XCTAssertEqual(MedicalFloat(float: 0x0200_0001).value, 100)
        XCTAssertEqual(MedicalFloat(float: 0x00FF_FFFF), .finite(mantissa: -1, exponent: 0))
        XCTAssertEqual(MedicalFloat(float: 0x007F_FFFD), .finite(mantissa: 8_388_605, exponent: 0))
        XCTAssertEqual(MedicalFloat(float: 0x0080_0003), .finite(mantissa: -8_388_605, exponent: 0))
        XCTAssertEqual(MedicalFloat(float: 0x7F00_0001).value, 1e127)
        XCTAssertEqual(MedicalFloat(float: 0x8000_0001).value, 1e-128)
        XCTAssertEqual(MedicalFloat(float: 0x007F_FFFF), .notANumber)
        XCTAssertEqual(MedicalFloat(float: 0x0080_0000), .notAtThisResolution)
        XCTAssertEqual(MedicalFloat(float: 0x007F_FFFE), .positiveInfinity)
        XCTAssertEqual(MedicalFloat(float: 0x0080_0002), .negativeInfinity)
        XCTAssertEqual(MedicalFloat(float: 0x0080_0001), .reserved)
        XCTAssertEqual(MedicalFloat(float: 0x017F_FFFF), .finite(mantissa: 8_388_607, exponent: 1))
    }
}
