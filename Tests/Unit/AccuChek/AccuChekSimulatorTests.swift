import CaptureUSB
import Drivers
import Foundation
import Model
import Pipeline
import Simulators
import TestSupport
import Transport
import TransportReplay
import XCTest

/// The Accu-Chek driver against the simulated meter: live, recorded to a usbmon pcap, replayed
/// by conversation and decoded passively, to exactly the values the meter was given; and the
/// meter failing in each way the exchange can.
final class AccuChekSimulatorTests: XCTestCase {
    /// 2026-03-09 07:15:00, the first result; one every three hours after it.
    static let first = PHDAbsoluteTime(year: 2026, month: 3, day: 9, hour: 7, minute: 15, second: 0)

    static func entries(_ values: [UInt16], status: [Int: UInt16] = [:]) -> [AccuChekEntry] {
        values.enumerated().map { i, value in
            AccuChekEntry(
                position: Int64(i), time: PHDAbsoluteTime(seconds: first.seconds + Int64(i) * 10_800), glucose: value, status: status[i] ?? 0)
        }
    }

    /// A meter whose clock reads an hour after its last result; the host's clock 90 s ahead of it.
    static func meter(_ unit: GlucoseUnit, _ entries: [AccuChekEntry]) -> AccuChekMeterSimulator {
        let clock = PHDAbsoluteTime(seconds: (entries.last?.time.seconds ?? first.seconds) + 3600)
        var tick = 0.0
        let host = Date(timeIntervalSince1970: TimeInterval(clock.seconds + 90))
        return AccuChekMeterSimulator(
            serial: "92912345678", unit: unit, clock: clock, entries: entries,
            hostClock: {
                tick += 0.001
                return host.addingTimeInterval(tick)
            })
    }

    /// Reads `meter` while recording it, then the recording replayed and decoded passively.
    func readRecordReplay(_ meter: AccuChekMeterSimulator) throws -> [GlucoseDownload] {
        let (downloads, device) = try UnitTests.readRecordReplay(AccuChekDriver.self, meter, hostClock: meter.hostClock)
        XCTAssertEqual(DriverRegistry.usbDriver(vendorID: device.description.vendorID, productID: device.description.productID)?.family, "accuchek")
        return downloads
    }

    private func summary(_ download: GlucoseDownload) -> [String] {
        download.glucose.map {
            "\($0.recordKey) \(CivilDate.wallClock($0.deviceSeconds)) \($0.value) \($0.unit.rawValue) \($0.flag?.rawValue ?? "-") \($0.note ?? "-")"
        }
    }

    func testMilligramsPerDeciliterMeter() throws {
        let entries = Self.entries(
            [99, 181, AccuChekMeterSimulator.high, AccuChekMeterSimulator.low, 120, 54], status: [4: AccuChekEntry.testData, 5: 0x0040])
        for download in try readRecordReplay(Self.meter(.milligramsPerDeciliter, entries)) {
            XCTAssertEqual(download.source, DeviceSource(family: "accuchek", serial: "92912345678", model: "Roche Guide 929"))
            XCTAssertEqual(
                summary(download),
                [
                    "result:1773040500 2026-03-09T07:15:00 99.0 mg/dL - -",
                    "result:1773051300 2026-03-09T10:15:00 181.0 mg/dL - -",
                    "result:1773062100 2026-03-09T13:15:00 600.0 mg/dL HI -",
                    "result:1773072900 2026-03-09T16:15:00 20.0 mg/dL LO -",
                    "result:1773094500 2026-03-09T22:15:00 54.0 mg/dL - meter status 0x0040",
                ])
            XCTAssertEqual(download.events, [ImportEvent(name: "control-solution", count: 1)])
            XCTAssertEqual(download.recordsRead, 6)
            XCTAssertEqual(download.clock.basis, .localWallClock)
            XCTAssertEqual(download.clock.deviceNow, 1_773_094_500 + 3600)
            XCTAssertEqual(download.clock.hostNow.map { Int64($0.timeIntervalSince1970) }, 1_773_094_500 + 3600 + 90)
            XCTAssertEqual(download.notes, [])
        }
    }

    func testMillimolesPerLiterMeter() throws {
        let values = [5.5, 10.1, 2.9].map { AccuChekMeterSimulator.sfloat($0, unit: .millimolesPerLiter) } + [AccuChekMeterSimulator.high]
        let downloads = try readRecordReplay(Self.meter(.millimolesPerLiter, Self.entries(values)))
        for download in downloads {
            XCTAssertEqual(download.glucose.map(\.value), [5.5, 10.1, 2.9, 33.3])
            XCTAssertEqual(Set(download.glucose.map(\.unit)), [.millimolesPerLiter])
            XCTAssertEqual(download.glucose.map(\.flag), [nil, nil, nil, .aboveRange])
        }
    }

    func testEmptyMemory() throws {
        let meter = Self.meter(.milligramsPerDeciliter, [])
        for download in try readRecordReplay(meter) {
            XCTAssertEqual(download.glucose, [])
            XCTAssertEqual(download.recordsRead, 0)
            XCTAssertEqual(download.notes, ["the meter's memory is empty"])
        }
        XCTAssertEqual(meter.received.last, .releaseRequest(reason: 0))
    }

    /// 720 results (a Guide's whole memory) served packet by packet: 29 segment-data events, each
    /// confirmed once; the host only ever asks, never sets the clock or clears the memory.
    func testFullMemoryPacketByPacket() throws {
        let values = (0..<720).map { UInt16(40 + ($0 * 37) % 361) }
        let meter = Self.meter(.milligramsPerDeciliter, Self.entries(values))
        meter.maximumReadLength = 64
        let download = try AccuChekDriver.download(over: meter, context: .fresh)
        XCTAssertEqual(download.glucose.map(\.value), values.map(Double.init))
        XCTAssertEqual(Set(download.glucose.map(\.recordKey)).count, 720)
        var confirmations = 0
        var actions: [UInt16] = []
        for apdu in meter.received {
            guard case .presentation(let data)? = apdu else { continue }
            switch data.message {
            case .eventReportResult(let event) where event.type == PHDEvent.segmentData: confirmations += 1
            case .action(_, let type, _, _): actions.append(type)
            case .get, .eventReportResult: break
            default: XCTFail("the host sent \(data.message.name)")
            }
        }
        XCTAssertEqual(confirmations, 29)
        XCTAssertEqual(actions, [DataMessage.getAction, DataMessage.transferAction])
        XCTAssertEqual(meter.received.count, 1 + 1 + 1 + 2 + 29 + 1)
    }

    private func failure(_ meter: AccuChekMeterSimulator) -> AccuChekError? {
        do {
            _ = try AccuChekDriver.download(over: meter, context: .fresh)
            return nil
        } catch {
            return error
        }
    }

    /// The meter goes quiet after its answer to GET: the error says what the host waited for,
    /// and the host aborts the association.
    func testMeterStopsAnswering() {
        let meter = Self.meter(.milligramsPerDeciliter, Self.entries([99, 100]))
        meter.silentAfterAPDUs = 3
        XCTAssertEqual(failure(meter), .noAnswer(waitingFor: "the answer to MDC_ACT_SEG_GET_INFO", .timeout(endpoint: 0x81)))
        XCTAssertEqual(meter.received.last, .abort(reason: 0))
    }

    /// The meter aborts the association (APDU 0xE600, reason 2) in place of its second segment
    /// event: the error counts the results it had sent.
    func testMeterAbortsMidTransfer() {
        for (perEvent, sent) in [(25, 25), (1, 1)] {
            let meter = Self.meter(.milligramsPerDeciliter, Self.entries((0..<30).map { UInt16(80 + $0) }))
            meter.entriesPerEvent = perEvent
            meter.replacedAPDUs[6] = [0xE6, 0x00, 0x00, 0x02, 0x00, 0x02]
            let error = failure(meter)
            XCTAssertEqual(error, .aborted(reason: 2, afterResults: sent))
            XCTAssertEqual(
                error?.description, "the meter aborted the association (reason 2) after \(sent) result\(sent == 1 ? "" : "s")")
        }
    }

    /// Unplugged in the middle of the segment transfer.
    func testUnpluggedMidTransfer() {
        let meter = Self.meter(.milligramsPerDeciliter, Self.entries((0..<100).map { UInt16(80 + $0) }))
        meter.unplugAfterReads = 6
        XCTAssertEqual(failure(meter), .transport(.disconnected("simulated Accu-Chek unplugged")))
    }

    /// A GET response whose attribute list claims more bytes than it holds.
    func testMalformedAnswer() {
        let meter = Self.meter(.milligramsPerDeciliter, Self.entries([99]))
        meter.replacedAPDUs[2] = [
            0xE7, 0x00, 0x00, 0x10, 0x00, 0x0E, 0x00, 0x01, 0x02, 0x03, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x09, 0x09, 0x84,
        ]
        XCTAssertEqual(
            failure(meter),
            .malformedAPDU(
                apdu: "presentation APDU (0xE700) from 173a:21d5", offset: 16, reason: "attribute list length 9 runs past the 2 bytes left"))
    }

    /// A meter that did not see the answer to its association request sends it again: it is
    /// answered again, and the download is whole; a meter that keeps asking is refused.
    func testRepeatedAssociationRequest() throws {
        let meter = Self.meter(.milligramsPerDeciliter, Self.entries([99, 100]))
        meter.lostAssociationResponses = 2
        for download in try readRecordReplay(meter) {
            XCTAssertEqual(download.glucose.map(\.value), [99, 100])
        }
        XCTAssertEqual(
            meter.received.prefix(3), [AccuChekDriver.associationResponse, AccuChekDriver.associationResponse, AccuChekDriver.associationResponse])
        let stubborn = Self.meter(.milligramsPerDeciliter, Self.entries([99]))
        stubborn.lostAssociationResponses = 4
        XCTAssertEqual(failure(stubborn), .unexpectedAPDU(location: "instead of its configuration", received: "association request (0xE200)"))
    }

    /// A segment-data event in answer to GET is not the exchange.
    func testUnexpectedAPDU() {
        let meter = Self.meter(.milligramsPerDeciliter, Self.entries([99]))
        meter.replacedAPDUs[2] = PHDAPDU.releaseRequest(reason: 0).encoded()
        XCTAssertEqual(
            failure(meter),
            .unexpectedAPDU(location: "in answer to GET of the MDS attributes (invoke-id 1)", received: "release request (0xE400)"))
    }
}
