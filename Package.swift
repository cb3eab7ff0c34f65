// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "glucobridge",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "glucobridge", targets: ["glucobridge"]),
        .library(name: "GlucoBridgeStore", targets: ["Store"]),
        // Every module that reads outside bytes, for the fuzz targets in Fuzz/ (a package of its own).
        .library(
            name: "GlucoBridgeParsers",
            targets: ["Capture", "Transport", "Drivers", "Ingest", "Store", "Importer", "Model", "Simulators"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
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
        .target(
            name: "Store",
            dependencies: [
                "Model", .product(name: "GRDB", package: "GRDB.swift"),
                // The raw C API, for the read-only look at a file before it is opened as a store.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        // The consensus CGM metrics of a period and the AGP curve, from stored readings.
        .target(name: "GlucoseMetrics", dependencies: ["Model", "Store"]),
        // The AGP report page: one self-contained HTML file with inline SVG.
        .target(name: "Report", dependencies: ["GlucoseMetrics", "Model", "Store"]),
        // Wires a transport, a driver, ingest and the store into one import.
        .target(
            name: "Importer",
            dependencies: [
                "Capture", "Transport", "Drivers", "Ingest", "Store", "Model",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Living on a Linux machine: the udev rules and systemd units (embedded from udev/ and
        // systemd/ through the symlinks in Sources/Setup/Files), install and uninstall, doctor.
        .target(
            name: "Setup", dependencies: ["Transport", "Drivers", "Store"],
            resources: [
                .embedInCode("Files/60-glucobridge.rules"), .embedInCode("Files/glucobridge-import@.service"),
                .embedInCode("Files/glucobridge.service"), .embedInCode("Files/glucobridge-user.service"),
                .embedInCode("Files/glucobridge.sysusers"),
            ]),
        // Pushes a local store to a central PostgreSQL, one patient at a time, resumably.
        .target(
            name: "Sync",
            dependencies: [
                "Store", "Model",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The background importer: USB hotplug, the spool folder, serialized imports, status.
        .target(
            name: "Daemon",
            dependencies: [
                "Importer", "Store", "Transport", "Drivers", "Model",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .executableTarget(
            name: "glucobridge",
            dependencies: [
                "Importer", "Ingest", "Store", "Transport", "Drivers", "Capture", "Model", "Setup", "Daemon", "GlucoseMetrics", "Report",
                "Sync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // A receiver in software: records demo and benchmark captures, drives behaviour tests.
        .target(name: "Simulators", dependencies: ["Drivers", "Transport", "Capture"]),
        .executableTarget(
            name: "glucobridge-bench",
            dependencies: [
                "Importer", "Store", "Transport", "Capture", "Drivers", "Ingest", "Simulators",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/DexcomThroughput"),
        .executableTarget(
            name: "glucobridge-sync-bench",
            dependencies: [
                "Sync", "Store", "Model", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/SyncThroughput"),
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
        .testTarget(
            name: "FreeStyleTests",
            dependencies: [
                "Drivers", "Importer", "Store", "Capture", "Transport", "Model", "Simulators", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(name: "CLITests", dependencies: ["glucobridge", "Store", "Model", "Ingest", "Simulators", "TestSupport"]),
        .testTarget(
            name: "GlucoseMetricsTests",
            dependencies: ["GlucoseMetrics", "Report", "Store", "Model", "Simulators", "Importer", "TestSupport"]),
        .testTarget(
            name: "SetupTests",
            dependencies: ["Setup", "Drivers", "Transport", "Store", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(
            name: "DaemonTests",
            dependencies: [
                "Daemon", "Importer", "Store", "Transport", "Capture", "Drivers", "Model", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .testTarget(
            name: "SyncTests",
            dependencies: [
                "Sync", "Store", "Model", "TestSupport", "glucobridge",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]),
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
