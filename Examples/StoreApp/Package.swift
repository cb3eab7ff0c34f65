// swift-tools-version:6.1
import PackageDescription

// An app's view of the store: the library examples of docs/store.md, built against the
// `GlucoBridgeStore` product alone, the way a separate app links it. `.ci/run` builds and runs
// it; `ReadmeExampleTests` checks that its sources are docs/store.md's code blocks, character
// for character.
let package = Package(
    name: "StoreApp",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "glucobridge", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "StoreApp",
            dependencies: [.product(name: "GlucoBridgeStore", package: "glucobridge")]),
    ],
    swiftLanguageModes: [.v6]
)
