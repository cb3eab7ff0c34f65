import Foundation
import TestSupport
import XCTest

/// The independent implementation the Libre 2 session is tested against: the freestyle-hid
/// Python package (PyPI, Apache-2.0), and the freestyle-keys package (PyPI, 0BSD) for the keys.
/// `.ci/run` installs both; elsewhere the tests that need them are skipped, saying so.
package enum FreeStyleOracle {
    /// The `python3` on PATH.
    package static var python: URL? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        return paths.map { URL(fileURLWithPath: "\($0)/python3") }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `script` with python3 after checking that the `modules` import; skips the test when
    /// python3 or one of them is missing.
    package static func run(_ script: String, needing modules: [String] = ["freestyle_hid"]) throws -> String {
        guard let python else { throw XCTSkip("python3 is not on PATH: the freestyle-hid oracle cannot run") }
        let check = try runProcess(python, ["-c", modules.map { "import \($0)" }.joined(separator: "\n")])
        guard check.status == 0 else {
            throw XCTSkip(
                "the Python modules \(modules.joined(separator: ", ")) are not installed (pip install freestyle-hid freestyle-keys): \(check.stderr.split(separator: "\n").last ?? "")"
            )
        }
        let result = try runProcess(python, ["-c", script])
        guard result.status == 0 else { throw OracleFailure(stderr: result.stderr) }
        return result.stdout
    }

    /// Runs `script` and decodes the JSON it prints.
    package static func json<T: Decodable>(_ type: T.Type, _ script: String, needing modules: [String] = ["freestyle_hid"]) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(try run(script, needing: modules).utf8))
    }

    struct OracleFailure: Error, CustomStringConvertible {
        var stderr: String
        var description: String { "the Python oracle failed: \(stderr)" }
    }
}
