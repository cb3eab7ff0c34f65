import Foundation
import ImportTestSupport
import TestSupport
import XCTest

/// The library examples of docs/store.md are the sources of `Examples/StoreApp`, a package of its
/// own that depends on the `GlucoBridgeStore` product alone; `.ci/run` builds and runs it. These
/// tests keep the two from drifting apart.
final class ReadmeExampleTests: XCTestCase {
    let example = Fixtures.repositoryRoot.appendingPathComponent("Examples/StoreApp")

    /// The Swift blocks of docs/store.md's library section, in order.
    func readmeBlocks() throws -> [String] {
        let readme = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/store.md"), encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "## From Swift: the `GlucoBridgeStore` library"))
        let section = readme[start.upperBound...].components(separatedBy: "\n## ")[0]
        return section.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```\n")[0] }
    }

    func testReadmeBlocksAreTheExamplePackagesSources() throws {
        let sources = example.appendingPathComponent("Sources/StoreApp")
        let files = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
        XCTAssertEqual(files, ["Watching.swift", "main.swift"])
        let blocks = try readmeBlocks()
        XCTAssertEqual(blocks.count, 2)
        for (file, block) in zip(["main.swift", "Watching.swift"], blocks) {
            let source = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            XCTAssertEqual(source, block, "docs/store.md's block differs from Examples/StoreApp/Sources/StoreApp/\(file)")
        }
    }

    /// The example package links the library product and nothing else, as an app would.
    func testExampleDependsOnTheLibraryProductAlone() throws {
        let manifest = try String(contentsOf: example.appendingPathComponent("Package.swift"), encoding: .utf8)
        XCTAssertEqual(manifest.components(separatedBy: ".package(").count - 1, 1, "one package dependency")
        XCTAssertTrue(manifest.contains(#".package(name: "glucobridge", path: "../..")"#))
        XCTAssertEqual(manifest.components(separatedBy: ".product(").count - 1, 1, "one product")
        XCTAssertTrue(manifest.contains(#"dependencies: [.product(name: "GlucoBridgeStore", package: "glucobridge")]"#))
        XCTAssertEqual(manifest.components(separatedBy: "Target(").count - 1, 1, "one target")
    }
}
