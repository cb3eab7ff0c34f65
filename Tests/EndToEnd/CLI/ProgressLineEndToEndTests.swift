import AppTestSupport
import Foundation
import ImportTestSupport
import Model
import Store
import TestSupport
import XCTest

@testable import glucobridge

/// The progress line of a command run from the built binary, on a terminal and off one.
final class ProgressLineEndToEndTests: XCTestCase {
    /// A replay drives the live FreeStyle driver: on a terminal (a pseudo-terminal from
    /// util-linux's `script`) its rows are counted on the progress line; with stderr in a file,
    /// nothing is.
    func testShownOnATerminalOnly() throws {
        let capture = Fixtures.url("freestyle/libre-synthetic.pcap").path
        let executable = BuiltProducts.executable("glucobridge")
        let piped = try CLIStore()
        let quiet = try runProcess(executable, ["replay", capture, "--store", piped.path], input: "")
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertEqual(quiet.stderr, "")
        XCTAssertFalse(quiet.stdout.contains("\u{1B}[K") || quiet.stdout.contains("rows:"), quiet.stdout)

        let terminal = try CLIStore()
        let shown = try runProcess(
            URL(fileURLWithPath: "/usr/bin/script"),
            ["-qec", "'\(executable.path)' replay '\(capture)' --store '\(terminal.path)'", "/dev/null"], input: "")
        XCTAssertEqual(shown.status, 0, shown.stdout)
        XCTAssertTrue(shown.stdout.contains("\r\u{1B}[Kreading $history? rows: 6"), shown.stdout)
        XCTAssertTrue(shown.stdout.contains("\r\u{1B}[Kreading $arresult? rows: 6"), shown.stdout)
        XCTAssertEqual(try terminal.store.glucose().count, 8, "the replay stored its readings")
    }
}
