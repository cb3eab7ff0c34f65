import Drivers
import Foundation
import Model
import Simulators
import Transport
import XCTest

/// The Dexcom driver reports its page reads to the process's progress sink.
final class DownloadProgressTests: XCTestCase {
    final class Reports: @unchecked Sendable {
        let lock = NSLock()
        var items: [(String, Int, Int?)] = []
        func append(_ item: (String, Int, Int?)) {
            lock.lock()
            items.append(item)
            lock.unlock()
        }
    }

    func testDexcomReportsEGVPagesReadOfTotal() throws {
        let last: UInt32 = 560_000_000
        let receiver = DexcomReceiverSimulator(
            pages: [DexcomPartition.manufacturingData.rawValue: [0: DexcomPageBuilder.manufacturingPage(serial: "SM00000042", systemSeconds: 1)],
                    DexcomPartition.egvData.rawValue: DexcomPageBuilder.generatedEGVPages(count: 380, lastSystemSeconds: last, displayOffset: 0)],
            systemTime: last + 60, displayTimeOffset: 0, hostClock: { Date(timeIntervalSince1970: 1_790_768_000) })
        let reports = Reports()
        DownloadProgress.install { stage, done, total in reports.append((stage, done, total)) }
        defer { DownloadProgress.install(nil) }
        _ = try DexcomDriver.download(over: receiver, after: { _ in [:] })
        XCTAssertEqual(reports.items.count, 10, "380 readings are 10 pages of 38")
        XCTAssertEqual(reports.items.map(\.1), Array(1...10))
        XCTAssertTrue(reports.items.allSatisfy { $0.0 == "egv pages" && $0.2 == 10 })

        // Without a sink nothing is reported anywhere.
        DownloadProgress.install(nil)
        _ = try DexcomDriver.download(over: receiver, after: { _ in [:] })
        XCTAssertEqual(reports.items.count, 10)
    }
}
