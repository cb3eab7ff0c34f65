import Drivers
import Foundation
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import XCTest

/// The Dexcom driver reports its page reads to the progress reporter it is given.
final class DownloadProgressTests: XCTestCase {
    func testDexcomReportsEGVPagesReadOfTotal() throws {
        let last: UInt32 = 560_000_000
        let receiver = DexcomReceiverSimulator(
            pages: [
                DexcomPartition.manufacturingData.rawValue: [0: DexcomPageBuilder.manufacturingPage(serial: "SM00000042", systemSeconds: 1)],
                DexcomPartition.egvData.rawValue: DexcomPageBuilder.generatedEGVPages(count: 380, lastSystemSeconds: last, displayOffset: 0),
            ],
            systemTime: last + 60, displayTimeOffset: 0, hostClock: { Date(timeIntervalSince1970: 1_790_768_000) })
        let reports = ProgressRecorder()
        _ = try DexcomDriver.download(over: receiver, context: DownloadContext(progress: reports.reporter))
        XCTAssertEqual(reports.items.count, 10, "380 readings are 10 pages of 38")
        XCTAssertEqual(reports.items.map(\.1), Array(1...10))
        XCTAssertTrue(reports.items.allSatisfy { $0.0 == "egv pages" && $0.2 == 10 })

        // Progress goes only where it was passed: another download's reporter gets its own, and a
        // download given none reports nowhere.
        let other = ProgressRecorder()
        _ = try DexcomDriver.download(over: receiver, context: DownloadContext(progress: other.reporter))
        _ = try DexcomDriver.download(over: receiver, context: .fresh)
        XCTAssertEqual(reports.items.count, 10)
        XCTAssertEqual(other.items.map(\.1), Array(1...10))
    }
}

/// A conversation replay of each family's fixture drives its live driver, which reports plausible
/// progress: running counts that only grow, out of the total the device announced when it does.
final class FamilyDownloadProgressTests: XCTestCase {
    func replay(_ fixture: String) throws -> [(String, Int, Int?)] {
        let folder = try Fixtures.temporaryDirectory()
        let store = try SharedStore(path: folder.appendingPathComponent("s.sqlite").path, timeZone: TimeZone(identifier: "Europe/Berlin")!)
        let reports = ProgressRecorder()
        let result = try Importer(store: store).run(.capture(Fixtures.url(fixture)), context: ImportContext(progress: reports.reporter))
        XCTAssertEqual(result.devices.map(\.replayMode), [.conversation])
        return reports.items
    }

    /// The counts of `stage`, in the order reported.
    func counts(_ items: [(String, Int, Int?)], _ stage: String) -> [Int] {
        items.filter { $0.0 == stage }.map(\.1)
    }

    /// Whether `counts` never go down.
    func isRising(_ counts: [Int]) -> Bool { zip(counts, counts.dropFirst()).allSatisfy { $0 <= $1 } }

    func testFreeStyleReportsTheRowsOfEachRecordsCommand() throws {
        let items = try replay("freestyle/libre-synthetic.pcap")
        XCTAssertEqual(Set(items.map(\.0)), ["$history? rows", "$arresult? rows"])
        XCTAssertTrue(items.allSatisfy { $0.2 == nil }, "the reader states its row count only at the end: a running count")
        // 12 records read: 6 rows of each command, counted up as their reports arrive.
        for stage in ["$history? rows", "$arresult? rows"] {
            let counts = counts(items, stage)
            XCTAssertTrue(isRising(counts), "\(stage): \(counts)")
            XCTAssertEqual(counts.last, 6, stage)
            XCTAssertGreaterThan(counts.count, 2, stage)
        }
    }

    func testContourReportsResultsOutOfTheHeadersCount() throws {
        let items = try replay("contour/contour-usb-session.txt")
        XCTAssertEqual(Set(items.map(\.0)), ["results"])
        // The real header states 1714 results; the stitched session then sends 2 of them.
        XCTAssertTrue(items.allSatisfy { $0.2 == 1714 }, "\(items)")
        XCTAssertTrue(isRising(counts(items, "results")))
        XCTAssertEqual(counts(items, "results").last, 2)
    }

    func testBluetoothCGMReportsRecordsOutOfTheRACPCount() throws {
        let items = try replay("ble/synthetic/synthetic-hrs-cgms-android-h4.btsnoop")
        let stage = "Continuous Glucose Monitoring records"
        XCTAssertEqual(Set(items.map(\.0)), [stage])
        // 5 live records counted as they come, then the RACP download: its 2 of the 2 stored.
        XCTAssertEqual(items.map(\.1), [1, 2, 3, 4, 5, 1, 2])
        XCTAssertEqual(items.map(\.2), [nil, nil, nil, nil, nil, 2, 2])
    }
}
