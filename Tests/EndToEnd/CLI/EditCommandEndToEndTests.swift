import AppTestSupport
import Foundation
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

@testable import glucobridge

/// `edit` and `remove` run from the built binary.
final class EditCommandEndToEndTests: XCTestCase {
    /// The real program: the error is one line on stderr, nothing on stdout, exit status 1.
    func testErrorsAreOneLineOnStderrAndExitStatus1() throws {
        let cli = try CLIStore(zone: "America/New_York")
        try cli.replayDexcomCapture()
        let result = try runProcess(BuiltProducts.executable("glucobridge"), ["remove", "glucose", "1", "--store", cli.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(
            result.stderr,
            "glucobridge: glucose log #1 was imported from the device dexcom:SM44792675 and cannot be "
                + "edited or removed: a re-import would bring the device's record back; add a corrected log instead\n")
        let missing = try runProcess(BuiltProducts.executable("glucobridge"), ["remove", "meal", "7", "--store", cli.path])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.stderr.split(separator: "\n").count, 1)
        XCTAssertTrue(missing.stderr.hasPrefix("glucobridge: there is no meal log #7 in the store"), missing.stderr)
    }
}
