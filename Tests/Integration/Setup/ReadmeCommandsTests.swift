import Foundation
import ImportTestSupport
import TestSupport
import XCTest

/// README's two commands work on a fresh Debian machine as root (no sudo there) and as a user
/// with sudo, and CI runs the test command as README gives it.
final class ReadmeCommandsTests: XCTestCase {
    /// The one-line `sh` block after README's heading `heading`.
    func command(after heading: String) throws -> String {
        let readme = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try XCTUnwrap(readme.components(separatedBy: "\n\(heading)\n").dropFirst().first, "README has no \(heading)")
        let block = try XCTUnwrap(section.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "\n```").first)
        XCTAssertFalse(block.contains("\n"), "one line to paste: \(block)")
        return block
    }

    func testTheCommandsNeedNoSudoAndCIRunsTheTestCommand() throws {
        let tryIt = try command(after: "## Try it")
        let tests = try command(after: "## Run the tests")
        for command in [tryIt, tests] {
            XCTAssertFalse(command.contains("sudo"), "`sudo` is missing where the user is root: \(command)")
        }
        XCTAssertTrue(tryIt.hasPrefix(".ci/setup && "), tryIt)
        XCTAssertEqual(tests, ".ci/setup --tests && swift test")
        let run = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent(".ci/run"), encoding: .utf8)
        XCTAssertTrue(run.split(separator: "\n").contains { $0 == tests }, ".ci/run runs README's test command as it is")
        let setup = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent(".ci/setup"), encoding: .utf8)
        XCTAssertTrue(setup.contains("as_root=(sudo)") && setup.contains("if [ \"$(id -u)\" -ne 0 ]"), "sudo only when not root")
        XCTAssertTrue(setup.contains(".ci/start-postgres"), "the test setup starts the sync tests' server")
    }
}
