import Model
import XCTest

final class GlucoseTagTests: XCTestCase {
    let consensus = GlucoseThresholds.consensus

    /// Every consensus edge, compared strictly on the value as sent: 54, 70 and 180 are on the
    /// upper side of their edge, any decimal below 54 or 70 or above 180 or 250 beyond it.
    func testMilligramEdges() {
        let cases: [(Double, GlucoseTag)] = [
            (39, .hypoLevel2), (53, .hypoLevel2), (53.4, .hypoLevel2), (53.5, .hypoLevel2), (53.9, .hypoLevel2), (53.99, .hypoLevel2),
            (54, .hypoLevel1), (54.0, .hypoLevel1), (69, .hypoLevel1), (69.4, .hypoLevel1), (69.5, .hypoLevel1), (69.6, .hypoLevel1),
            (69.9, .hypoLevel1), (70, .inRange), (120, .inRange), (180, .inRange), (180.1, .hyperLevel1), (180.4, .hyperLevel1),
            (180.5, .hyperLevel1), (181, .hyperLevel1), (204.5, .hyperLevel1), (250, .hyperLevel1), (250.1, .hyperLevel2),
            (251, .hyperLevel2), (401, .hyperLevel2),
        ]
        for (value, tag) in cases {
            XCTAssertEqual(consensus.tag(mgdl: value), tag, "\(value) mg/dL")
        }
    }

    /// A value computed on its way in (539 × 0.1, or mmol/L × 18.016 ÷ 18.016) is tagged as the
    /// decimal it stands for, not by its last binary digit.
    func testBinaryNoiseIsNotADecimal() {
        XCTAssertNotEqual(539 * 0.1, 53.9)
        XCTAssertEqual(consensus.tag(mgdl: 539 * 0.1), .hypoLevel2)
        XCTAssertEqual(consensus.tag(mgdl: 700 * 0.1), .inRange)
        XCTAssertEqual(consensus.tag(mgdl: 70.000_000_000_01), .inRange)
        XCTAssertEqual(consensus.tag(mgdl: 69.999_999_999_99), .inRange)
        XCTAssertEqual(consensus.tag(mgdl: 180.000_000_000_01), .inRange)
        for tenths in 20...140 {
            let mmol = Double(tenths) / 10
            XCTAssertEqual(
                consensus.tag(mmolPerLiter: GlucoseUnit.millimolesPerLiter.milligramsPerDeciliter(mmol) / GlucoseUnit.mgdlPerMmol),
                consensus.tag(mmolPerLiter: mmol), "\(mmol) mmol/L")
        }
    }

    /// Text for reading: rounded, but never across an edge.
    func testDisplayNeverRoundsAcrossAnEdge() {
        let mgdl: [(Double, String)] = [
            (53.9, "53.9"), (54, "54"), (69.4, "69"), (69.6, "69.6"), (69.96, "69.96"), (70, "70"), (120.4, "120"),
            (180.1, "180.1"), (180.4, "180.4"), (180.6, "181"), (204.5, "205"), (204.49, "204"), (120.5, "121"),
            (250.2, "250.2"), (250.6, "251"),
        ]
        for (value, text) in mgdl {
            XCTAssertEqual(DisplayText.glucose(value, unit: .milligramsPerDeciliter), text, "\(value) mg/dL")
        }
        let mmol: [(Double, String)] = [
            (53.9, "2.99"), (54, "3.0"), (69.6, "3.86"), (70, "3.9"), (180, "10.0"), (180.3, "10.01"), (250, "13.9"),
            // 180.1 mg/dL is above 180 but 9.997 mmol/L is not above 10.0: the units' edges
            // disagree, no decimal helps, and the tag (by the mg/dL edge) is shown beside it.
            (180.1, "10.0 (hyper-l1)"), (180.16, "10.0 (hyper-l1)"),
            // 250.1 mg/dL is above 250 but 13.88 mmol/L is not above 13.9: level 2, said so.
            (250.1, "13.9 (hyper-l2)"),
            // 180.17 mg/dL is 10.0006 mmol/L: above 10.0 to three decimals, so shown that way.
            (180.17, "10.001"),
        ]
        for (value, text) in mmol {
            XCTAssertEqual(DisplayText.glucose(value, unit: .millimolesPerLiter), text, "\(value) mg/dL in mmol/L")
        }
    }

    /// Numbers round a half away from zero on their decimal digits, as a person rounds, not half
    /// to even on their binary value as `%.0f` does (204.5 was shown as 204).
    func testNumbersRoundAHalfAwayFromZero() {
        let cases: [(Double, Int, String)] = [
            (204.5, 0, "205"), (203.5, 0, "204"), (0.5, 0, "1"), (0.25, 1, "0.3"), (0.35, 1, "0.4"), (1.005, 2, "1.01"),
            (2.675, 2, "2.68"), (-2.5, 0, "-3"), (-0.04, 1, "0"), (-0.05, 1, "-0.1"), (0, 1, "0"), (60.5, 1, "60.5"),
            (60.50, 2, "60.5"), (45, 1, "45"), (0.049, 1, "0"), (99.7, 0, "100"), (1234567.891, 2, "1234567.89"), (0.001, 3, "0.001"),
        ]
        for (value, decimals, text) in cases {
            XCTAssertEqual(DisplayText.number(value, decimals: decimals), text, "\(value) to \(decimals) decimals")
        }
        XCTAssertEqual(DisplayText.number(.infinity), "inf")
    }

    /// Exports write a stored value as it is: whole stays whole, a decimal keeps its digits.
    func testExactText() {
        XCTAssertEqual(GlucoseValueText.exact(100), "100")
        XCTAssertEqual(GlucoseValueText.exact(99.7), "99.7")
        XCTAssertEqual(GlucoseValueText.exact(204.5), "204.5")
        XCTAssertEqual(GlucoseValueText.exact(539 * 0.1), "53.9")
        XCTAssertEqual(GlucoseValueText.exact(5.5 * GlucoseUnit.mgdlPerMmol), "99.088")
    }

    /// The mmol/L edges 3.0, 3.9, 10.0 and 13.9 map to the same tags as 54, 70, 180 and 250 mg/dL,
    /// although 10.0 × 18.016 = 180.16 mg/dL.
    func testMillimolarEdges() {
        let cases: [(Double, GlucoseTag)] = [
            (2.9, .hypoLevel2), (2.99, .hypoLevel2), (3.0, .hypoLevel1), (3.8, .hypoLevel1), (3.85, .hypoLevel1), (3.9, .inRange),
            (10.0, .inRange), (10.01, .hyperLevel1), (10.1, .hyperLevel1), (13.9, .hyperLevel1), (14.0, .hyperLevel2),
        ]
        for (value, tag) in cases {
            XCTAssertEqual(consensus.tag(mmolPerLiter: value), tag, "\(value) mmol/L")
            XCTAssertEqual(consensus.tag(value, unit: .millimolesPerLiter), tag, "\(value) mmol/L")
        }
        XCTAssertEqual(GlucoseUnit.millimolesPerLiter.milligramsPerDeciliter(10.0), 180.16, accuracy: 1e-9)
    }

    func testCustomThresholds() throws {
        let tight = try GlucoseThresholds(veryLow: 54, low: 80, high: 140, veryHigh: 250)
        XCTAssertEqual(tight.tag(mgdl: 79), .hypoLevel1)
        XCTAssertEqual(tight.tag(mgdl: 80), .inRange)
        XCTAssertEqual(tight.tag(mgdl: 141), .hyperLevel1)
        XCTAssertEqual(tight.tag(mmolPerLiter: 4.4), .inRange)  // 80 mg/dL → 4.4 mmol/L
        XCTAssertEqual(tight.tag(mmolPerLiter: 4.3), .hypoLevel1)
    }

    func testImpossibleThresholdsAreRefused() {
        XCTAssertThrowsError(try GlucoseThresholds(veryLow: 70, low: 54, high: 180, veryHigh: 250)) { error in
            XCTAssertEqual(error as? ModelError, .invalidThresholds(veryLow: 70, low: 54, high: 180, veryHigh: 250))
            XCTAssertTrue("\(error)".contains("0 < very low ≤ low < high ≤ very high"))
        }
        XCTAssertThrowsError(try GlucoseThresholds(veryLow: 0, low: 70, high: 180, veryHigh: 250))
        XCTAssertThrowsError(try GlucoseThresholds(veryLow: 54, low: 180, high: 180, veryHigh: 250))
    }

    func testTagGroups() {
        XCTAssertEqual(GlucoseTag.allCases.filter(\.isHypo), [.hypoLevel2, .hypoLevel1])
        XCTAssertEqual(GlucoseTag.allCases.filter(\.isHyper), [.hyperLevel1, .hyperLevel2])
    }
}
