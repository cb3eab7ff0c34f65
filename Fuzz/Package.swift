// swift-tools-version:6.1
import PackageDescription

// Coverage-guided fuzzing of every parser of outside bytes, with libFuzzer. A package of its own,
// so the main package's `swift build` and `swift test` never build it: `Fuzz/run` builds it with
// `--sanitize=fuzzer` and runs each target (see docs/testing.md, "Fuzzing").
let package = Package(
    name: "glucobridge-fuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "glucobridge", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "glucobridge-fuzz",
            dependencies: [.product(name: "_GlucoBridgeParsers", package: "glucobridge")])
    ],
    swiftLanguageModes: [.v6]
)
