import CaptureUSB
import Drivers
import Foundation
import ImportTestSupport
import Importer
import Model
import Simulators
import Store
import TestSupport
import Transport
import TransportReplay
import XCTest

/// Behaviour that needs a device to change between sessions, with the simulated receiver.
final class ReceiverBehaviourTests: XCTestCase {
    let lastSystem: UInt32 = 560_000_000
    let hostNow = Date(timeIntervalSince1970: 1_790_768_000)

    func receiver(readings: Int, lastSystem: UInt32? = nil, hostOffset: TimeInterval = 0) -> DexcomReceiverSimulator {
        let last = lastSystem ?? self.lastSystem
        let pages = DexcomPageBuilder.generatedEGVPages(count: readings, lastSystemSeconds: last, displayOffset: -25_200)
        let host = Date(timeIntervalSince1970: TimeInterval(dexcomEpochOffsetFrom1970) + TimeInterval(last + 60) + hostOffset)
        return DexcomReceiverSimulator(
            pages: [
                DexcomPartition.manufacturingData.rawValue: [0: DexcomPageBuilder.manufacturingPage(serial: "SM00000042", systemSeconds: 1)],
                DexcomPartition.egvData.rawValue: pages,
            ],
            systemTime: last + 60, displayTimeOffset: -25_200, hostClock: { host })
    }

    func pagesRead(_ receiver: DexcomReceiverSimulator) -> Int {
        receiver.commandsReceived.filter { $0 == DexcomCommand.readDatabasePages.rawValue }.count - 1  // minus the manufacturing page
    }

    /// A re-import reads back only to the page holding the newest stored record.
    func testReimportReadsOnlyNewPages() throws {
        let (store, _) = try makeStore()
        let importer = Importer(store: store)
        let first = receiver(readings: 380)  // 10 pages of 38
        let outcome = try importer.importOne(over: first, driver: DexcomDriver.self, origin: "simulated")
        XCTAssertEqual(outcome.summary.added, 380)
        XCTAssertEqual(pagesRead(first), 10)
        XCTAssertEqual(try store.cursor(source: outcome.source, stream: "egv"), 379)

        // Three hours later the receiver holds 36 more readings: pages 9 (now full) and 10 are read.
        let later = receiver(readings: 416, lastSystem: lastSystem + 36 * 300)
        let second = try importer.importOne(over: later, driver: DexcomDriver.self, origin: "simulated")
        XCTAssertEqual(pagesRead(later), 2)
        XCTAssertEqual(second.summary.added, 36)
        XCTAssertEqual(second.summary.alreadyStored, 38)
        XCTAssertEqual(try store.glucose().count, 416)
        XCTAssertEqual(try store.cursor(source: outcome.source, stream: "egv"), 415)

        // Nothing new: only the newest page is read and nothing is added.
        let same = receiver(readings: 416, lastSystem: lastSystem + 36 * 300)
        let third = try importer.importOne(over: same, driver: DexcomDriver.self, origin: "simulated")
        XCTAssertEqual(pagesRead(same), 1)
        XCTAssertEqual(third.summary.added, 0)
    }

    /// The receiver's clock is seven months behind the host's: readings land at host time, and a
    /// later import with a different offset neither moves nor duplicates them.
    func testWrongReceiverClockDoesNotShiftOrDuplicate() throws {
        let (store, _) = try makeStore()
        let importer = Importer(store: store)
        let sevenMonths: TimeInterval = 212 * 86_400
        let outcome = try importer.importOne(over: receiver(readings: 76, hostOffset: sevenMonths), driver: DexcomDriver.self, origin: "simulated")
        XCTAssertEqual(outcome.clock.offsetSeconds, sevenMonths + 0)
        XCTAssertTrue(outcome.notes.contains { $0.contains("7 months behind the host clock") }, "\(outcome.notes)")
        let before = try store.glucose()
        let expectedNewest = Date(timeIntervalSince1970: TimeInterval(dexcomEpochOffsetFrom1970) + TimeInterval(lastSystem) + sevenMonths)
        XCTAssertEqual(before.last?.time, expectedNewest)

        // Next session: the offset has drifted by 90 s; two more readings.
        let next = receiver(readings: 78, lastSystem: lastSystem + 600, hostOffset: sevenMonths + 90)
        let again = try importer.importOne(over: next, driver: DexcomDriver.self, origin: "simulated")
        XCTAssertEqual(again.summary.added, 2)
        let after = try store.glucose()
        XCTAssertEqual(after.count, 78)
        XCTAssertEqual(Array(after.prefix(76)).map(\.time), before.map(\.time))
    }

    /// Unplugged during the EGV pages: the import fails naming the cause and nothing is written,
    /// not even the readings that had already arrived.
    func testUnplugMidReadWritesNothing() throws {
        let (store, _) = try makeStore()
        let importer = Importer(store: store)
        _ = try importer.importOne(over: receiver(readings: 38), driver: DexcomDriver.self, origin: "simulated")
        let before = try tableCounts(store)

        let unplugged = receiver(readings: 380, lastSystem: lastSystem + 3000)
        unplugged.repliesBeforeUnplug = 12
        XCTAssertThrowsError(try importer.importOne(over: unplugged, driver: DexcomDriver.self, origin: "simulated")) { error in
            guard case ImportError.transport(.disconnected) = error else { return XCTFail("unexpected \(error)") }
            XCTAssertTrue("\(error)".contains("disconnected"), "\(error)")
        }
        XCTAssertEqual(try tableCounts(store), before)
        XCTAssertTrue(unplugged.claimed.isEmpty, "the interfaces are released on the failure path")
    }

    /// A session recorded through the recorder replays request for request and gives the same readings.
    func testRecordedSessionReplaysByConversation() throws {
        let folder = try Fixtures.temporaryDirectory()
        let capture = folder.appendingPathComponent("session.pcap")
        let (liveStore, _) = try makeStore()
        let live = try Importer(store: liveStore).importOne(
            over: receiver(readings: 100), driver: DexcomDriver.self, origin: "simulated", recordTo: capture)

        let (replayStore, _) = try makeStore()
        let replayed = try Importer(store: replayStore).replayOne(captureAt: capture)
        XCTAssertEqual(replayed.replayMode, .conversation)
        XCTAssertEqual(replayed.summary.added, 100)
        XCTAssertEqual(replayed.source, live.source)
        let a = try liveStore.glucose()
        let b = try replayStore.glucose()
        XCTAssertEqual(a.map(\.time), b.map(\.time))
        XCTAssertEqual(a.map(\.mgdl), b.map(\.mgdl))
        XCTAssertEqual(a.map(\.recordKey), b.map(\.recordKey))
        // The capture knows its device from the descriptors the recorder wrote.
        let device = try XCTUnwrap(RecordedUSBDevice.devices(in: USBCaptureReader.read(contentsOf: capture)).first)
        XCTAssertTrue(device.hasDescriptors)
        XCTAssertEqual(device.description.idString, "22a3:0047")
        XCTAssertEqual(device.description.interfaces.map(\.interfaceClass), [0x02, 0x0A])
    }

    /// Bytes damaged in transit: the reply's packet CRC fails, naming the command; nothing stored.
    func testDamagedReplyInCaptureWritesNothing() throws {
        var bytes = [UInt8](try Data(contentsOf: Fixtures.url("dexcom/ecc1-g4-receiver.pcap")))
        // The EGV page: find its header (first index 11856 = 0x2E50, 23 records, partition 4, rev 2).
        let header: [UInt8] = [0x50, 0x2E, 0, 0, 23, 0, 0, 0, 4, 2]
        let start = try XCTUnwrap((0...(bytes.count - header.count)).first { Array(bytes[$0..<$0 + header.count]) == header })
        bytes[start + 28 + 13 * 3 + 8] ^= 0x01
        let folder = try Fixtures.temporaryDirectory()
        let corrupt = folder.appendingPathComponent("corrupt.pcap")
        try Data(bytes).write(to: corrupt)

        let (store, _) = try makeStore()
        XCTAssertThrowsError(try Importer(store: store).replayOne(captureAt: corrupt)) { error in
            XCTAssertTrue("\(error)".hasPrefix("CRC mismatch in the reply to ReadDatabasePages(EGVData, page 312, 1 page)"), "\(error)")
        }
        XCTAssertEqual(
            try tableCounts(store),
            [
                "day": 0, "glucose": 0, "source": 0, "import_run": 0, "source_cursor": 0, "activity_minute": 0, "activity_minute_part": 0,
                "exercise": 0,
            ])
    }

    /// A page stored corrupt on the receiver (sent intact): its record CRC names page and record,
    /// and nothing of the import is stored.
    func testCorruptStoredPageWritesNothing() throws {
        let simulator = receiver(readings: 76)
        var page = try XCTUnwrap(simulator.pages[DexcomPartition.egvData.rawValue]?[0])
        page[28 + 13 * 5 + 8] ^= 0x20
        simulator.pages[DexcomPartition.egvData.rawValue]?[0] = page
        let folder = try Fixtures.temporaryDirectory()
        let capture = folder.appendingPathComponent("corrupt-page.pcap")
        let (store, _) = try makeStore()
        XCTAssertThrowsError(
            try Importer(store: store).importOne(
                over: simulator, driver: DexcomDriver.self, origin: "simulated", recordTo: capture)
        ) { error in
            XCTAssertTrue("\(error)".hasPrefix("EGVData page 0, record 5: CRC is"), "\(error)")
        }
        XCTAssertEqual(
            try tableCounts(store),
            [
                "day": 0, "glucose": 0, "source": 0, "import_run": 0, "source_cursor": 0, "activity_minute": 0, "activity_minute_part": 0,
                "exercise": 0,
            ])
        // The same from the recording of that session.
        XCTAssertThrowsError(try Importer(store: store).replayOne(captureAt: capture)) { error in
            XCTAssertTrue("\(error)".hasPrefix("EGVData page 0, record 5: CRC is"), "\(error)")
        }
        XCTAssertEqual(try tableCounts(store)["glucose"], 0)
    }

    /// A capture cut short: the error names the packet and the byte, and nothing is stored.
    func testTruncatedCaptureWritesNothing() throws {
        let bytes = try Data(contentsOf: Fixtures.url("dexcom/ecc1-g4-receiver.pcap"))
        let folder = try Fixtures.temporaryDirectory()
        let cut = folder.appendingPathComponent("cut.pcap")
        try bytes.prefix(bytes.count - 300).write(to: cut)
        let (store, _) = try makeStore()
        _ = try Importer(store: store).replayOne(captureAt: Fixtures.url("dexcom/ecc1-g4-receiver.pcap"))
        let before = try tableCounts(store)
        XCTAssertThrowsError(try Importer(store: store).replayOne(captureAt: cut)) { error in
            guard case ImportError.capture(.truncated) = error else { return XCTFail("unexpected \(error)") }
            XCTAssertTrue("\(error)".contains("cut.pcap: packet"), "\(error)")
            XCTAssertTrue("\(error)".contains("the file is cut short"), "\(error)")
        }
        XCTAssertEqual(try tableCounts(store), before)
    }

    /// A page range wider than any receiver holds (a damaged or hostile reply) is refused before
    /// any page is read, rather than walked page by page.
    func testAnImpossiblePageRangeIsRefused() throws {
        let (store, _) = try makeStore()
        let simulated = receiver(readings: 38)
        var pages = simulated.pages[DexcomPartition.egvData.rawValue] ?? [:]
        pages[40_000] = pages[0]
        simulated.pages[DexcomPartition.egvData.rawValue] = pages
        XCTAssertThrowsError(try Importer(store: store).importOne(over: simulated, driver: DexcomDriver.self, origin: "simulated")) {
            XCTAssertTrue("\($0)".contains("pages 0–40000 are more than the 16384 a receiver holds"), "\($0)")
        }
        XCTAssertEqual(pagesRead(simulated), 0)
        XCTAssertEqual(try store.glucose().count, 0)
    }
}
