import Model
import XCTest

final class GlucoseTagTests: XCTestCase {
    let consensus = GlucoseThresholds.consensus

    /// Every consensus edge: 70 and 180 are in range.
    func testMilligramEdges() {
        let cases: [(Double, GlucoseTag)] = [
            (39, .hypoLevel2), (53, .hypoLevel2), (53.4, .hypoLevel2), (53.5, .hypoLevel1), (54, .hypoLevel1),
            (69, .hypoLevel1), (69.4, .hypoLevel1), (69.5, .inRange), (70, .inRange), (120, .inRange), (180, .inRange),
            (180.4, .inRange), (180.5, .hyperLevel1), (181, .hyperLevel1), (250, .hyperLevel1), (251, .hyperLevel2), (401, .hyperLevel2),
        ]
        for (value, tag) in cases {
            XCTAssertEqual(consensus.tag(mgdl: value), tag, "\(value) mg/dL")
        }
    }

    /// The mmol/L edges 3.0, 3.9, 10.0 and 13.9 map to the same tags as 54, 70, 180 and 250 mg/dL,
    /// although 10.0 × 18.016 = 180.16 mg/dL.
    func testMillimolarEdges() {
        let cases: [(Double, GlucoseTag)] = [
            (2.9, .hypoLevel2), (3.0, .hypoLevel1), (3.8, .hypoLevel1), (3.9, .inRange), (10.0, .inRange),
            (10.1, .hyperLevel1), (13.9, .hyperLevel1), (14.0, .hyperLevel2),
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
