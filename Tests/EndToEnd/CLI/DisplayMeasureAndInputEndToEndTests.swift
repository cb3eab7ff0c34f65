import AppTestSupport
import Foundation
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

@testable import glucobridge

/// Every view run from the built binary with `--json`.
final class DisplayMeasureAndInputEndToEndTests: XCTestCase {
    /// status, profile, devices and doctor print JSON with --json, as every other view.
    func testEveryViewTakesJSON() throws {
        let cli = try CLIStore()
        try cli.replayDexcomCapture()
        for arguments in [["status"], ["profile"], ["doctor"], ["devices"]] {
            let storeArguments = arguments == ["devices"] ? [] : ["--store", cli.path]
            let result = try runProcess(BuiltProducts.executable("glucobridge"), arguments + ["--json"] + storeArguments)
            XCTAssertNotEqual(result.stdout, "", "\(arguments): \(result.stderr)")
            XCTAssertNoThrow(try jsonObject(result.stdout), "\(arguments) --json: \(result.stdout)")
        }
        let status = try runProcess(BuiltProducts.executable("glucobridge"), ["status", "--json", "--store", cli.path])
        let object = try XCTUnwrap(try jsonObject(status.stdout) as? [String: Any])
        let imports = try XCTUnwrap(object["last_imports"] as? [[String: Any]])
        XCTAssertEqual(imports.first?["source"] as? String, "dexcom:SM44792675")
        XCTAssertEqual(imports.first?["added"] as? Int, 23)
        let profile = try runProcess(BuiltProducts.executable("glucobridge"), ["profile", "--age", "40", "--json", "--store", cli.path])
        let record = try XCTUnwrap(try jsonObject(profile.stdout) as? [String: Any])
        XCTAssertEqual(record["age"] as? Int, 40)
        XCTAssertEqual(record["effective_max_heart_rate"] as? Double, 180)
        XCTAssertTrue(record["resting_heart_rate"] is NSNull)
    }
}
