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
        // TLS settings for the central PostgreSQL (Sync); the version postgres-nio resolves to.
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
    ],
    targets: [
        // C libraries, through pkg-config.
        .systemLibrary(
            name: "CLibUSB", pkgConfig: "libusb-1.0",
            providers: [.apt(["libusb-1.0-0-dev"]), .brew(["libusb"])]),
        .systemLibrary(
            name: "CBluetooth", pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]),
        // The one variadic SQLite call the store makes (switching triggers off for an import's rows).
        .systemLibrary(name: "CSQLiteConfig", providers: [.apt(["libsqlite3-dev"])]),

        // Value types shared by every layer: readings, glucose units and input, exercise and activity,
        // device downloads and import batches, the user profile, civil dates.
        .target(name: "Model"),
        // Capture files, read and written. USB: usbmon pcap/pcapng, USBPcap, the one-line-per-transfer
        // transcript. Bluetooth: btsnoop, HCI packets and events, L2CAP reassembly, UUIDs, addresses,
        // advertising data.
        .target(name: "Capture"),
        // The wire. USB: the transport protocol, HID framing, libusb (live and hotplug), replay and
        // recording. Bluetooth LE: the GATT client over ATT, live BlueZ sockets (libbluetooth, scan
        // and connect), replay and recording.
        .target(name: "Transport", dependencies: ["CLibUSB", "CBluetooth", "Capture"]),
        // One folder per device family (Dexcom, FreeStyle, Contour, BLE GATT services); each speaks to
        // a transport protocol and yields device records.
        .target(name: "Drivers", dependencies: ["Capture", "Transport", "Model"]),
        // Device records to store-ready values: UTC from device clocks, the plausible-time window;
        // heart-rate and step streams to exercise sessions.
        .target(name: "Ingest", dependencies: ["Model"]),
        // The shared SQLite store (GRDB): schema and migrations, recording imports, logs, Days and
        // tagging, queries, change listeners. The GlucoBridgeStore library product.
        .target(
            name: "Store",
            dependencies: [
                "Model", .product(name: "GRDB", package: "GRDB.swift"),
                // The raw C API, for the read-only look at a file before it is opened as a store.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CSQLiteConfig",
            ]),
        // The consensus CGM metrics of a period and the AGP curve, from stored readings.
        .target(name: "GlucoseMetrics", dependencies: ["Model", "Store"]),
        // The AGP report page: one self-contained HTML file with inline SVG.
        .target(name: "Report", dependencies: ["GlucoseMetrics", "Model", "Store"]),
        // Wires a transport, a driver, ingest and the store into one import (USB or BLE), and reports it.
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
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The background importer: USB hotplug, Bluetooth sources, the spool folder, serialized
        // imports, status, scheduled sync.
        .target(
            name: "Daemon",
            dependencies: [
                "Importer", "Store", "Transport", "Drivers", "Model",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // The command-line tool: one subcommand per task (scan, import, replay, days and logs, export,
        // stats, report, daemon, status, doctor, install, sync, ...).
        .executableTarget(
            name: "glucobridge",
            dependencies: [
                "Importer", "Ingest", "Store", "Transport", "Drivers", "Capture", "Model", "Setup", "Daemon", "GlucoseMetrics", "Report",
                "Sync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // Devices in software (Dexcom receiver, FreeStyle reader, Contour meter, BLE peripherals):
        // record demo and benchmark captures, drive behaviour tests.
        .target(name: "Simulators", dependencies: ["Drivers", "Transport", "Capture"]),
        // Benchmarks (swift run -c release ...), each against a baseline timed in the same run.
        // Dexcom import speed against a plain prepared-statement insert.
        .executableTarget(
            name: "glucobridge-bench",
            dependencies: [
                "Importer", "Store", "Transport", "Capture", "Drivers", "Ingest", "Simulators",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/DexcomThroughput"),
        // Sync throughput: many patients' stores into one PostgreSQL server.
        .executableTarget(
            name: "glucobridge-sync-bench",
            dependencies: [
                "Sync", "Store", "Model", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/SyncThroughput"),
        // Exercise detection throughput over a week of heart-rate and step streams.
        .executableTarget(
            name: "glucobridge-exercise-bench", dependencies: ["Ingest", "Model"], path: "Benchmarks/ExerciseDetection"),

        // Helpers shared by the tests: fixtures, capture cuts, the built binary and other processes,
        // the sqlite3 program, PNG reading, activity streams.
        .target(name: "TestSupport", dependencies: ["Capture", "Model"], path: "Tests/TestSupport"),
        // Tests, one target per module or device family. CLITests, SyncTests, DaemonTests and
        // SetupTests also start the built binary or other processes.
        .testTarget(name: "ModelTests", dependencies: ["Model"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "TestSupport"]),
        .testTarget(
            name: "TransportTests", dependencies: ["Transport", "Capture", "CLibUSB", "CBluetooth", "TestSupport"]),
        .testTarget(name: "BLETransportTests", dependencies: ["Transport", "Capture", "CBluetooth", "TestSupport"]),
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
        .testTarget(
            name: "CLITests",
            dependencies: [
                "glucobridge", "Importer", "Store", "Transport", "Capture", "Model", "Ingest", "Simulators", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
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
                .product(name: "Logging", package: "swift-log"),
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
