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

/// A long G6 history downloaded by another program (every EGV page, no meter partition): what a
/// replay decodes, counted in pages.
final class LargeDumpReplayTests: XCTestCase {
    static let days = 20
    /// 20 records a page: 5,760 records on 288 pages.
    static let egvPages = days * 288 / 20

    func dump() throws -> (URL, RecordedUSBDevice) {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("receiver-g6-\(Self.days)d.pcap")
        try DexcomVendorDump.record(days: Self.days, to: url)
        let device = try XCTUnwrap(RecordedUSBDevice.devices(in: try USBCaptureReader.read(contentsOf: url)).first(where: \.hasDescriptors))
        return (url, device)
    }

    /// A re-import decodes no EGV page: every one is at or below the stored cursor.
    func testReimportDecodesNoPageBelowTheCursor() throws {
        let (url, device) = try dump()
        let (store, _) = try makeStore(zone: "UTC")
        let importer = Importer(store: store)
        let first = try importer.replayOne(captureAt: url)
        guard case .passive = first.replayMode else { return XCTFail("\(String(describing: first.replayMode))") }
        XCTAssertEqual(first.summary.added, DexcomVendorDump.readings(days: Self.days))
        XCTAssertEqual(first.summary.recordsRead, Self.days * 288)
        let cursor = try XCTUnwrap(try store.cursor(source: first.source, stream: "egv"))
        XCTAssertEqual(cursor, Int64(Self.days * 288 - 1))

        let again = try importer.replayOne(captureAt: url)
        XCTAssertEqual(again.summary.recordsRead, 0, "records decoded again")
        XCTAssertEqual(again.summary.added, 0)
        XCTAssertEqual(try store.glucose().count, DexcomVendorDump.readings(days: Self.days))
        XCTAssertEqual(try store.cursor(source: first.source, stream: "egv"), cursor)

        // The same decode, page by page: the manufacturing page alone is decoded.
        var asked: [DeviceSource] = []
        let recorded = AskedSources()
        let stored = DownloadContext(stored: try store.cursorsBySource())
        let session = try DexcomDriver.decodeSession(
            device.exchanges,
            context: DownloadContext { source in
                recorded.append(source)
                return stored.cursors(source)
            })
        asked = recorded.sources
        XCTAssertEqual(asked.map(\.serial), [DexcomVendorDump.serial])
        XCTAssertEqual(session.pagesDecoded, 1)
        XCTAssertEqual(session.pagesSkipped, Self.egvPages)
        XCTAssertEqual(session.egv.inIndexOrder().count, 0)
    }

    /// With the cursor inside page 250 (records 5,000–5,019), pages 250 to 287 are decoded and
    /// none before them; the records below the cursor on page 250 are decoded with it.
    func testPassiveDecodeStartsAtThePageHoldingTheCursor() throws {
        let (_, device) = try dump()
        let session = try DexcomDriver.decodeSession(device.exchanges, context: DownloadContext { _ in ["egv": 5_000] })
        let egvFirstIndexes = try XCTUnwrap(session.pageFirstIndex[DexcomPartition.egvData.rawValue])
        XCTAssertEqual(egvFirstIndexes.keys.sorted(), Array(250..<UInt32(Self.egvPages)))
        XCTAssertTrue(egvFirstIndexes.values.allSatisfy { $0 + 19 > 5_000 })
        XCTAssertEqual(session.pagesDecoded, 1 + (Self.egvPages - 250))
        XCTAssertEqual(session.pagesSkipped, 250)
        XCTAssertEqual(session.egv.inIndexOrder().first?.index, 5_000)
        XCTAssertEqual(session.egv.inIndexOrder().count, Self.days * 288 - 5_000)
        // A cursor of a stream the receiver does not keep, or below every record, skips nothing.
        let all = try DexcomDriver.decodeSession(device.exchanges, context: DownloadContext { _ in ["egv": -1, "other": 9] })
        XCTAssertEqual(all.pagesSkipped, 0)
        XCTAssertEqual(all.egv.inIndexOrder().count, Self.days * 288)
    }

    /// Conversation replay asks both page ranges before any page: on this capture it stops at the
    /// meter page range, before a single EGV page is asked for.
    func testConversationReplayStopsBeforeTheFirstEGVPage() throws {
        let (_, device) = try dump()
        let counting = CountingTransport(ReplayUSBTransport(device))
        XCTAssertThrowsError(try DexcomDriver.readSession(over: counting, context: .fresh)) { error in
            guard case .transport(.requestNotInCapture(let request, _)) = error as? DexcomError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(request, DexcomPacket.request(.readDatabasePageRange, payload: [DexcomPartition.meterData.rawValue]))
        }
        XCTAssertEqual(counting.pageRequests, [DexcomPartition.manufacturingData.rawValue])
    }
}

/// Passes everything through, noting the partition of every ReadDatabasePages request written.
private final class CountingTransport: USBTransport {
    let wrapped: any USBTransport
    private(set) var pageRequests: [UInt8] = []

    init(_ wrapped: any USBTransport) {
        self.wrapped = wrapped
    }

    var device: USBDeviceDescription { wrapped.device }

    func claimInterface(_ number: UInt8) throws(TransportError) {
        try wrapped.claimInterface(number)
    }

    func write(_ bytes: [UInt8], to endpoint: USBEndpoint, timeout: Duration) throws(TransportError) {
        if bytes.count > 4, bytes[3] == DexcomCommand.readDatabasePages.rawValue { pageRequests.append(bytes[4]) }
        try wrapped.write(bytes, to: endpoint, timeout: timeout)
    }

    func read(from endpoint: USBEndpoint, maxLength: Int, timeout: Duration) throws(TransportError) -> USBRead {
        try wrapped.read(from: endpoint, maxLength: maxLength, timeout: timeout)
    }

    func control(_ setup: USBControlSetup, data: [UInt8], timeout: Duration) throws(TransportError) -> USBRead {
        try wrapped.control(setup, data: data, timeout: timeout)
    }

    func close() {
        wrapped.close()
    }
}

/// The sources a driver asked the cursors of, in order (the cursors closure is `@Sendable`).
private final class AskedSources: @unchecked Sendable {
    private let lock = NSLock()
    private var asked: [DeviceSource] = []

    func append(_ source: DeviceSource) { lock.withLock { asked.append(source) } }
    var sources: [DeviceSource] { lock.withLock { asked } }
}
