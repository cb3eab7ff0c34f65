// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "glucobridge",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "glucobridge", targets: ["glucobridge"]),
        .library(name: "GlucoBridgeStore", targets: ["Store"]),
        // Every module that reads outside bytes, for the fuzz targets in Fuzz/ (a package of its own).
        // Not API: the underscore says so (docs/public-api.md).
        .library(
            name: "_GlucoBridgeParsers",
            targets: [
                "CaptureUSB", "CaptureBluetooth", "Transport", "TransportReplay", "Drivers", "Ingest", "Store",
                "Importer", "Model", "Pipeline", "Simulators",
            ]),
    ],
    // Ranges, not pins: an app that links GlucoBridgeStore resolves this whole graph with its own.
    // The versions CI tests are pinned by the committed Package.resolved, which SwiftPM reads for
    // the root package only.
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The daemon's Swift Concurrency executor (NIOPosix's event loop); postgres-nio depends on it too.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        // TLS settings for the central PostgreSQL (Sync); the version postgres-nio resolves to.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // `swift package generate-documentation --target Store`: the library's DocC catalog.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // C libraries, through pkg-config.
        .systemLibrary(
            name: "CLibUSB", pkgConfig: "libusb-1.0",
            providers: [.apt(["libusb-1.0-0-dev"]), .brew(["libusb"])]),
        .systemLibrary(
            name: "CBluetooth", pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]),
        // libmtp: the files of a watch that speaks MTP (Garmin), read-only.
        .systemLibrary(name: "CLibMTP", pkgConfig: "libmtp", providers: [.apt(["libmtp-dev"])]),
        // The one variadic SQLite call the store makes (switching triggers off for an import's rows).
        .systemLibrary(name: "CSQLiteConfig", providers: [.apt(["libsqlite3-dev"])]),
        // The kernel's SG_IO ioctl (scsi/sg.h), called through a shim: the ioctl is variadic.
        .systemLibrary(name: "CSCSIGeneric", providers: [.apt(["libc6-dev"])]),
        // Sets the Swift runtime's global-executor hooks (the daemon runs its tasks on an event loop).
        .target(name: "CConcurrencyHooks"),
        // Marks where the code only the daemon's start-up runs ends (Linker/glucobridge.order).
        .target(name: "CProgramLayout"),

        // The value types apps see (Store re-exports them): readings, glucose units and input,
        // exercise and activity, the user profile, civil dates.
        .target(name: "Model"),
        // What the import pipeline passes between its stages, not seen by apps: a driver's device
        // download and the progress it reports, the import batch handed to the store.
        .target(name: "Pipeline", dependencies: ["Model"]),
        // USB capture files, read and written: usbmon pcap/pcapng, USBPcap, the one-line-per-transfer
        // transcript; transfers assembled from their packets; their errors.
        .target(name: "CaptureUSB", dependencies: ["Transport"]),
        // Bluetooth capture files and their values: btsnoop read and written,
        // L2CAP reassembly, LE connections and their ATT PDUs, UUIDs, addresses, advertising data.
        .target(name: "CaptureBluetooth", dependencies: ["Transport"]),
        // The wire's abstractions, no C library: integer reads and appends, hex; whole-file reads and
        // the crash-safe capture file writer; HCI packets and events;
        // the USB transport protocol, descriptors, device
        // locations and HID framing; the ATT bearer protocol, the ATT PDU codec and the GATT client
        // over it; scan results; their errors.
        .target(name: "Transport"),
        // The CRCs devices use, by their catalogue names (CRC-16/XMODEM, CRC-16/MCRF4XX, ...).
        .target(name: "Checksums"),
        // Live USB through libusb: device listing, the transport, hotplug events.
        .target(name: "TransportLibUSB", dependencies: ["Transport", "CLibUSB"]),
        // Live Bluetooth LE through BlueZ sockets (libbluetooth): the L2CAP ATT bearer, the LE scan,
        // the adapter probe.
        .target(name: "TransportBlueZ", dependencies: ["Transport", "CBluetooth"]),
        // The test and replay twins, no C library: USB devices split from a capture, replayed and
        // recorded; ATT bearers replayed from and recorded to btsnoop; the replay deadline.
        .target(name: "TransportReplay", dependencies: ["Transport", "CaptureUSB", "CaptureBluetooth"]),
        // One folder per device family (Dexcom, FreeStyle, Contour, BLE GATT services); each speaks to
        // a transport protocol and yields device records.
        .target(name: "Drivers", dependencies: ["Transport", "Model", "Pipeline", "Checksums"]),
        // Device records to store-ready values: UTC from device clocks, the plausible-time window;
        // heart-rate and step streams to exercise sessions.
        .target(name: "Ingest", dependencies: ["Model", "Pipeline"]),
        // The shared SQLite store (GRDB): schema and migrations, saving imports, logs, Days and
        // tagging, queries, change listeners, reading typed times. The GlucoBridgeStore library
        // product: `import Store` re-exports Model and GRDB; import-only calls are `package`.
        .target(
            name: "Store",
            dependencies: [
                "Model", "Pipeline", .product(name: "GRDB", package: "GRDB.swift"),
                // The raw C API, for the read-only look at a file before it is opened as a store.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CSQLiteConfig",
            ]),
        // The exports (CSV, JSON, Nightscout) of readings, logs and Days, streamed from the store
        // into a buffer written to a file descriptor.
        .target(name: "Export", dependencies: ["Model", "Store"]),
        // The consensus CGM metrics of a period and the AGP curve, from stored readings.
        .target(name: "GlucoseMetrics", dependencies: ["Model", "Store"]),
        // The AGP report page: one self-contained HTML file with inline SVG.
        .target(name: "Report", dependencies: ["GlucoseMetrics", "Model", "Store"]),
        // The one import pipeline: a source (a capture file, a USB device, a Bluetooth peer) and a
        // context (recording, limits, progress, cancellation) through a driver, ingest and the store
        // into one outcome and one report. No C library: the live devices are in LiveImport.
        .target(
            name: "Importer",
            dependencies: [
                "CaptureUSB", "CaptureBluetooth", "Transport", "TransportReplay", "Drivers", "Ingest", "Store",
                "Model", "Pipeline", .product(name: "Logging", package: "swift-log"),
            ]),
        // The live sources of the pipeline: a USB reader opened through libusb (the first supported
        // one, or the one at a bus location), a Bluetooth LE peer connected through BlueZ.
        // USB disks through the kernel: a disk's SCSI nodes found through sysfs, commands sent
        // with SG_IO.
        .target(name: "TransportSCSI", dependencies: ["Transport", "CSCSIGeneric"]),
        // MTP devices through libmtp: folders listed and files copied off, nothing written to them.
        .target(name: "TransportMTP", dependencies: ["Transport", "CLibMTP"]),
        .target(
            name: "LiveImport",
            dependencies: ["Importer", "Drivers", "Transport", "TransportLibUSB", "TransportBlueZ", "TransportSCSI", "TransportMTP"]),
        // Living on a Linux machine: the udev rules and systemd units (embedded from udev/ and
        // systemd/ through the symlinks in Sources/Setup/Files), install and uninstall, doctor.
        .target(
            name: "Setup", dependencies: ["Transport", "TransportLibUSB", "TransportBlueZ", "TransportSCSI", "Drivers", "Store"],
            resources: [
                .embedInCode("Files/60-glucobridge.rules"), .embedInCode("Files/glucobridge-import@.service"),
                .embedInCode("Files/glucobridge.service"), .embedInCode("Files/glucobridge-user.service"),
                .embedInCode("Files/glucobridge.sysusers"),
            ]),
        // Pushes a local store to a central PostgreSQL, one patient at a time, resumably.
        .target(
            name: "Sync",
            dependencies: [
                "Store",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The background importer: USB hotplug, Bluetooth sources, the spool folder, serialized
        // imports, status, scheduled sync.
        .target(
            name: "Daemon",
            dependencies: [
                "Importer", "LiveImport", "Store", "Transport", "TransportLibUSB", "Drivers", "CProgramLayout", "CConcurrencyHooks",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            // The release program's code is laid out by Linker/glucobridge.order (below), with a
            // toolchain that has been checked to lay it out so (`codeLayoutIsVerified`).
            swiftSettings: codeLayoutIsVerified ? [.define("ORDERED_PROGRAM_CODE", .when(platforms: [.linux], configuration: .release))] : []),
        // The command-line tool: one subcommand per task (scan, import, replay, days and logs, export,
        // stats, report, daemon, status, doctor, install, sync, ...).
        .executableTarget(
            name: "glucobridge",
            dependencies: [
                "Importer", "LiveImport", "Store", "Transport", "TransportLibUSB", "TransportBlueZ", "Drivers",
                "Model", "Pipeline", "Setup", "Daemon", "GlucoseMetrics", "Report", "Sync", "Export",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // A release build carries the Swift runtime and Foundation inside the program (as
            // `swift build --static-swift-stdlib` does): a command starts in about half the time,
            // without resolving thousands of symbols in a dozen shared libraries, and the program
            // runs on a machine without the Swift toolchain. Linked by lld, its code laid out for the
            // daemon (releaseLinkerFlags, below).
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib"] + releaseLinkerFlags, .when(platforms: [.linux], configuration: .release))]),
        // Devices in software (Dexcom receiver, FreeStyle reader, Contour meter, BLE peripherals):
        // record demo and benchmark captures, drive behaviour tests.
        .target(
            name: "Simulators", dependencies: ["Drivers", "Model", "Transport", "TransportReplay", "CaptureBluetooth", "Checksums"]),
        // The device lab's device models (Lab/): simulators and recorded devices served to a real
        // kernel as USB gadgets (configfs, FunctionFS, f_hid) and a Bluetooth LE peripheral (L2CAP).
        .executableTarget(
            name: "glucobridge-lab-device",
            dependencies: [
                "Simulators", "Drivers", "Transport", "TransportReplay", "CaptureUSB", "CaptureBluetooth", "CBluetooth",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/LabDevices"),
        // A simulated reader served on file descriptors (a HID gadget's /dev/hidgN, or pipes to a
        // host in another process, such as freestyle-hid in the tests).
        .executableTarget(
            name: "glucobridge-simulator",
            dependencies: ["Simulators", "Drivers", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // Benchmarks (swift run -c release ...), each against a baseline timed in the same run.
        // Dexcom import speed against a plain prepared-statement insert; the report of 90 and 365 Days.
        .executableTarget(
            name: "glucobridge-bench",
            dependencies: [
                "Importer", "Store", "Transport", "TransportReplay", "CaptureUSB", "Drivers", "Ingest", "Simulators", "CSQLiteConfig",
                "Report",
                "Export",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/DexcomThroughput"),
        // Sync throughput: many patients' stores into one PostgreSQL server.
        .executableTarget(
            name: "glucobridge-sync-bench",
            dependencies: [
                "Sync", "Store", "Model", "Pipeline", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/SyncThroughput"),
        // The idle daemon's resident memory by region and its CPU over a quiet minute, against
        // `sleep` measured in the same run (runs the release build of `glucobridge`).
        .executableTarget(name: "glucobridge-daemon-bench", path: "Benchmarks/DaemonFootprint"),
        // Exercise detection throughput over a week of heart-rate and step streams.
        .executableTarget(
            name: "glucobridge-exercise-bench", dependencies: ["Ingest", "Model"], path: "Benchmarks/ExerciseDetection"),

        // Helpers shared by the tests: fixtures, capture cuts, the built binary and other processes,
        // the sqlite3 program, PNG reading, activity streams.
        .target(name: "TestSupport", dependencies: ["Transport", "Model", "Pipeline"], path: "Tests/TestSupport"),
        // The tests' shortcuts into the import pipeline, and the driver conformance kit.
        .target(
            name: "ImportTestSupport",
            dependencies: [
                "Importer", "Drivers", "Transport", "TransportReplay", "CaptureUSB", "CaptureBluetooth", "Store", "Model", "Pipeline",
                "Simulators", "TestSupport",
            ],
            path: "Tests/ImportTestSupport"),
        // The command line in process, for tests that run its commands on a store.
        .target(
            name: "AppTestSupport", dependencies: ["glucobridge", "Export", "Store", "Model", "TestSupport"], path: "Tests/AppTestSupport"),
        // Tests by level. Unit: in this process, no store file, no server, no other program;
        // `swift test --filter UnitTests` is the fast loop. Integration: real SQLite stores, the
        // machine's libusb and BlueZ, the daemon's services in process, the command line's
        // commands in process. EndToEnd: the built binary, the daemon, sqlite3, Chromium and
        // freestyle-hid as processes, and the PostgreSQL server of `.ci/start-postgres`. Each
        // level's folders are named for the module or device family they test.
        .testTarget(
            name: "UnitTests",
            dependencies: [
                "Model", "Pipeline", "CaptureUSB", "CaptureBluetooth", "Transport", "TransportReplay", "Drivers", "Ingest", "Simulators",
                "Export", "Checksums", "TestSupport",
            ],
            path: "Tests/Unit"),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "glucobridge", "Importer", "LiveImport", "Daemon", "Setup", "Sync", "Store", "GlucoseMetrics", "Report", "Drivers",
                "Ingest", "Model", "Pipeline", "Simulators", "CaptureUSB", "CaptureBluetooth", "Transport", "TransportReplay",
                "TransportLibUSB", "TransportBlueZ", "TransportSCSI", "CLibUSB", "CBluetooth", "Checksums", "TestSupport", "ImportTestSupport",
                "AppTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/Integration",
            // Read from the source tree by ImportReportSnapshotTests, not bundled.
            exclude: ["Importer/ReportSnapshots"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "glucobridge", "Importer", "Setup", "Sync", "Store", "GlucoseMetrics", "Report", "Drivers", "Model", "Pipeline", "Simulators",
                "CaptureUSB", "CaptureBluetooth", "Transport", "TransportReplay", "TransportBlueZ", "TestSupport", "ImportTestSupport",
                "AppTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/EndToEnd"),
    ],
    swiftLanguageModes: [.v6]
)

/// How the release program is linked on Linux, for a smaller resident daemon (docs/benchmarks.md,
/// "The idle daemon"):
/// - by lld (in the Swift toolchain) instead of gold;
/// - `--no-export-dynamic` undoes the `-export-dynamic` that `-static-stdlib` adds: nothing looks
///   the program's symbols up by name (the Swift runtime finds its metadata through the program's
///   own sections), and their table was 2.4 MB resident;
/// - with a toolchain whose layout has been checked (`codeLayoutIsVerified`), the functions the
///   daemon runs go first in `.text`: those only its start-up runs, the `CProgramLayout` marker,
///   those start-up and imports run, those only imports run, as Linker/glucobridge.order lists
///   them (Linker/make-order writes it from a profile of the daemon). A page fault maps up to 16
///   neighbouring pages of the program file, and neighbours that hold the daemon's code are pages
///   it uses anyway; the daemon unmaps the start-up part once idle. Names the order no longer
///   matches are ignored;
/// - where the C library the program will run with loads them (glibc 2.36 and later,
///   `GLIBC_ABI_DT_RELR`), the relative relocations can be packed as a bitmap
///   (`-z pack-relative-relocs`, DT_RELR) instead of 127,000 24-byte RELA entries read at every
///   start. The manifest cannot know that C library (the build may be for another machine), so
///   the builder says so: `GLUCOBRIDGE_PACK_RELATIVE_RELOCS=1` in the environment of the build.
var releaseLinkerFlags: [String] {
    var flags = ["-use-ld=lld", "-Xlinker", "--no-export-dynamic"]
    if codeLayoutIsVerified {
        flags += [
            "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Linker/glucobridge.order",
            "-Xlinker", "--no-warn-symbol-ordering",
        ]
    }
    if Context.environment["GLUCOBRIDGE_PACK_RELATIVE_RELOCS"] == "1" {
        flags += ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"]
    }
    return flags
}

/// Whether this toolchain's release build has been checked to lay the daemon's code out as
/// Linker/glucobridge.order says, with the start-up marker where `ProgramPages` unmaps to (Swift
/// 6.0 to 6.3: `ProgramPagesTests` and the daemon benchmark). A newer compiler may name or split
/// functions otherwise; it builds without the order and without unmapping until it is checked
/// and this bound is raised.
var codeLayoutIsVerified: Bool {
    #if compiler(>=6.0) && compiler(<6.4)
        return true
    #else
        return false
    #endif
}
