// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "glucobridge",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "glucobridge", targets: ["glucobridge"]),
        .library(name: "GlucoBridgeStore", targets: ["Store"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
    ],
    targets: [
        // C libraries, through pkg-config.
        .systemLibrary(
            name: "CLibUSB", pkgConfig: "libusb-1.0",
            providers: [.apt(["libusb-1.0-0-dev"]), .brew(["libusb"])]),
        .systemLibrary(
            name: "CBluetooth", pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]),

        // Value types shared by every layer: readings, tags, thresholds, sources.
        .target(name: "Model"),
        // Capture files: usbmon pcap/pcapng, USBPcap, and the one-line-per-transfer transcript.
        .target(name: "Capture"),
        // The wire: the USB transport protocol, libusb, replay and recording.
        .target(name: "Transport", dependencies: ["CLibUSB", "CBluetooth", "Capture"]),
        // One folder per device family; each speaks to a transport and yields device records.
        .target(name: "Drivers", dependencies: ["Capture", "Transport", "Model"]),
        // Device records to store-ready values: UTC from device clocks.
        .target(name: "Ingest", dependencies: ["Model"]),
        // The shared SQLite store (GRDB).
        .target(name: "Store", dependencies: ["Model", .product(name: "GRDB", package: "GRDB.swift")]),
        // Wires a transport, a driver, ingest and the store into one import.
        .target(
            name: "Importer",
            dependencies: [
                "Capture", "Transport", "Drivers", "Ingest", "Store", "Model",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(
            name: "glucobridge",
            dependencies: [
                "Importer", "Store", "Transport", "Model",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // A receiver in software: records demo and benchmark captures, drives behaviour tests.
        .target(name: "Simulators", dependencies: ["Drivers", "Transport", "Capture"]),
        .executableTarget(
            name: "glucobridge-bench",
            dependencies: [
                "Importer", "Store", "Transport", "Capture", "Drivers", "Simulators",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/DexcomThroughput"),
        .executableTarget(
            name: "glucobridge-exercise-bench", dependencies: ["Ingest", "Model"], path: "Benchmarks/ExerciseDetection"),

        .target(name: "TestSupport", dependencies: ["Capture", "Model"], path: "Tests/TestSupport"),
        .testTarget(name: "ModelTests", dependencies: ["Model"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "TestSupport"]),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "Capture", "TestSupport"]),
        .testTarget(name: "BLETransportTests", dependencies: ["Transport", "Capture", "TestSupport"]),
        .testTarget(name: "DexcomTests", dependencies: ["Drivers", "Transport", "Capture", "Model", "TestSupport"]),
        .testTarget(name: "IngestTests", dependencies: ["Ingest", "Model", "TestSupport"]),
        .testTarget(name: "BLEServiceTests", dependencies: ["Drivers", "Capture", "Model", "TestSupport"]),
        .testTarget(
            name: "ContourTests",
            dependencies: ["Drivers", "Importer", "Store", "Capture", "Transport", "Model", "Simulators", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["glucobridge", "Store", "Model", "Ingest", "TestSupport"]),
        .testTarget(
            name: "StoreTests",
            dependencies: ["Store", "Model", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(
            name: "ImporterTests",
            dependencies: [
                "Importer", "Store", "Transport", "Capture", "Drivers", "Ingest", "Model", "Simulators", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "BLEImportTests",
            dependencies: [
                "Importer", "Store", "Transport", "Capture", "Drivers", "Ingest", "Model", "Simulators", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
