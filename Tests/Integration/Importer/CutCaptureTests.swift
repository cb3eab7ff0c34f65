import Drivers
import Foundation
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import Transport
import XCTest

/// Captures cut short after each whole record (a recording that stopped early): every replay
/// ends, within a watchdog's time, with an error or an import of what the capture holds whole,
/// and stores only readings the whole capture also gives, unchanged.
final class CutCaptureTests: XCTestCase {
    /// Seconds one cut replay may take before the test calls it a hang.
    let watchdog = 20.0

    func testContourSessionCutAfterEachReport() throws {
        try checkEveryCut(of: Fixtures.url("contour/contour-usb-session.txt"))
    }

    func testDexcomCaptureCutAfterEachPacket() throws {
        try checkEveryCut(of: Fixtures.url("dexcom/ecc1-g4-receiver.pcap"))
    }

    /// A receiver with several EGV pages, recorded as a live import records it.
    func testDexcomMultiPageCaptureCutAfterEachPacket() throws {
        let folder = try Fixtures.temporaryDirectory()
        let capture = folder.appendingPathComponent("receiver.pcap")
        try recordReceiverCapture(readings: 38 * 4, serial: "SM00000077", to: capture)
        try checkEveryCut(of: capture)
    }

    func testFreeStyleCaptureCutAfterEachPacket() throws {
        try checkEveryCut(of: Fixtures.url("freestyle/libre-synthetic.pcap"))
    }

    /// An Accu-Chek session (IEEE 11073-20601 APDUs over bulk packets), recorded as `--record`
    /// writes it, cut after each packet.
    func testAccuChekSessionCutAfterEachPacket() throws {
        let first = PHDAbsoluteTime(year: 2026, month: 3, day: 9, hour: 7, minute: 15, second: 0)
        let entries = [53, 70, 181, 251, 99, 140].enumerated().map { index, value in
            AccuChekEntry(
                position: Int64(index), time: PHDAbsoluteTime(seconds: first.seconds + Int64(index) * 10_800), glucose: UInt16(value), status: 0)
        }
        let host = Date(timeIntervalSince1970: TimeInterval(first.seconds + 6 * 10_800 + 90))
        let meter = AccuChekMeterSimulator(
            serial: "92912345678", unit: .milligramsPerDeciliter, clock: PHDAbsoluteTime(seconds: first.seconds + 6 * 10_800), entries: entries,
            hostClock: { host })
        meter.entriesPerEvent = 2
        let capture = try Fixtures.temporaryDirectory().appendingPathComponent("accuchek.pcap")
        try AccuChekMeterSimulator.record(meter, to: capture)
        try checkEveryCut(of: capture)
    }

    /// A OneTouch Verio session (LifeScan frames in SCSI blocks over Bulk-Only Transport),
    /// recorded as `--record` writes it, cut after each packet.
    func testVerioSessionCutAfterEachPacket() throws {
        let newest: UInt32 = 826_355_700
        let host = Date(timeIntervalSince1970: TimeInterval(Int64(newest) + VerioSession.epochOffset + 3600 + 90))
        let meter = VerioMeterSimulator(
            meter: VerioMeter(
                serial: "RPT1234ABC", model: "OneTouch Verio Reflect", unitParameter: 0, clock: newest + 3600,
                records: VerioMeter.history(count: 4, newest: newest, values: [53, 70, 181, 251]), vendor: VerioDriver.vendor),
            productID: 0x000C, hostClock: { host })
        let capture = try Fixtures.temporaryDirectory().appendingPathComponent("verio.pcap")
        try VerioMeterSimulator.record(meter, to: capture)
        try checkEveryCut(of: capture)
    }

    /// Bluetooth captures are cut at 30 places spread over them (every record would take minutes).
    func testBluetoothCapturesCutThroughout() throws {
        for name in [
            "ble/synthetic/synthetic-hrs-cgms-android-h4.btsnoop", "ble/synthetic/synthetic-hrs-cgms-btmon-monitor.btsnoop",
            "ble/hr-40min-walk.btsnoop",
        ] {
            try checkEveryCut(of: Fixtures.url(name), samples: 30)
        }
    }

    /// The hang the fuzzer found: a Contour session cut after the last result frame's ACK, before
    /// the meter's terminator and EOT. It ends with the results it holds whole, not in a loop.
    func testContourSessionCutBeforeItsEOTEnds() throws {
        let lines = try String(contentsOf: Fixtures.url("contour/contour-usb-session.txt"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        let lastOut = try XCTUnwrap(lines.lastIndex { $0.hasPrefix("out,") })
        let folder = try Fixtures.temporaryDirectory()
        let cut = folder.appendingPathComponent("cut.txt")
        try lines[...lastOut].joined(separator: "\n").appending("\n").write(to: cut, atomically: true, encoding: .utf8)
        let (store, _) = try makeStore()
        let result = try XCTUnwrap(withWatchdog(seconds: watchdog) { try Importer(store: store).replayOne(captureAt: cut) }, "the replay hung")
        if case .success(let outcome) = result {
            XCTAssertEqual(outcome.summary.added, try store.glucose().count)
        }
        XCTAssertLessThanOrEqual(try store.glucose().count, 2)
    }

    /// A replay given no time at all stops at its first transfer and stores nothing.
    func testAReplayPastItsBudgetStoresNothing() throws {
        let (store, _) = try makeStore()
        let before = try tableCounts(store)
        XCTAssertThrowsError(try Importer(store: store).replayOne(captureAt: Fixtures.url("dexcom/ecc1-g4-receiver.pcap"), budget: .zero)) {
            guard case .driver(let error)? = $0 as? ImportError else { return XCTFail("\($0)") }
            XCTAssertEqual(error.transportError, .deadlinePassed(.zero), "\($0)")
        }
        XCTAssertThrowsError(
            try Importer(store: store).replayOneBLE(
                captureAt: Fixtures.url("ble/synthetic/synthetic-hrs-cgms-android-h4.btsnoop"), budget: .zero)
        ) {
            XCTAssertTrue("\($0)".contains("its time limit is 0 s (--import-limit 0 abandons every import); nothing of it was stored"), "\($0)")
        }
        XCTAssertEqual(try tableCounts(store), before)
    }

    // MARK: helpers

    /// What the store holds, without its own row ids: each glucose reading whole, and the
    /// minutes of activity (a cut may end inside a minute, which then holds fewer samples).
    static func contents(of store: SharedStore) throws -> Set<String> {
        var rows = Set(
            try store.glucose().map {
                "glucose \($0.sourceSerial ?? "-") \($0.recordKey ?? "-") \($0.time.timeIntervalSince1970) \($0.mgdl) \($0.kind) \($0.flag.map { "\($0)" } ?? "-")"
            })
        let minutes = try store.database.read { db in try String.fetchAll(db, sql: "SELECT minute FROM activity_minute") }
        rows.formUnion(minutes.map { "activity minute \($0)" })
        return rows
    }

    /// Replays the whole capture, then each cut of it (all, or `samples` spread over it), each
    /// into a fresh store.
    func checkEveryCut(of url: URL, samples: Int? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = [UInt8](try Data(contentsOf: url))
        var cuts = try CaptureCuts.boundaries(of: bytes).filter { $0 < bytes.count }
        XCTAssertGreaterThan(cuts.count, 3, "\(url.lastPathComponent) has too few records to cut", file: file, line: line)
        if let samples, cuts.count > samples {
            cuts = (0..<samples).map { cuts[$0 * cuts.count / samples] }
        }
        let whole = try replayed(url, into: try makeStore().0)
        let wholeReadings = try XCTUnwrap(whole, "the whole capture hung", file: file, line: line).get()
        XCTAssertFalse(wholeReadings.isEmpty, "the whole \(url.lastPathComponent) stores nothing", file: file, line: line)

        let folder = try Fixtures.temporaryDirectory()
        for cut in cuts {
            let piece = folder.appendingPathComponent("cut-\(cut)." + url.pathExtension)
            try Data(bytes[..<cut]).write(to: piece)
            let (store, _) = try makeStore()
            guard let result = try replayed(piece, into: store) else {
                XCTFail(
                    "\(url.lastPathComponent) cut at byte \(cut) of \(bytes.count): the replay did not end within \(watchdog) s", file: file,
                    line: line)
                continue
            }
            let stored = try Self.contents(of: store)
            switch result {
            case .success:
                break
            case .failure:
                XCTAssertTrue(stored.isEmpty, "a failed import stored \(stored.count) readings (cut at \(cut))", file: file, line: line)
            }
            let foreign = stored.subtracting(wholeReadings)
            XCTAssertTrue(
                foreign.isEmpty, "cut at byte \(cut): stored readings the whole capture does not give: \(foreign.prefix(3))",
                file: file, line: line)
            try? FileManager.default.removeItem(at: piece)
        }
    }

    /// What a replay of `url` left in the store, or its error; nil when it did not end in time.
    func replayed(_ url: URL, into store: SharedStore) throws -> Result<Set<String>, any Error>? {
        let isBluetooth = Importer.isBTSnoop(url)
        return withWatchdog(seconds: watchdog) {
            let importer = Importer(store: store)
            if isBluetooth {
                _ = try importer.replayOneBLE(captureAt: url)
            } else {
                _ = try importer.replayOne(captureAt: url)
            }
            return try Self.contents(of: store)
        }
    }
}
