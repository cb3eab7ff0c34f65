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

/// The Verio driver against the simulated meter over Bulk-Only Transport: live, recorded to a
/// usbmon pcap, replayed by conversation and decoded passively, to exactly the values the meter
/// was given; a disk that is not a LifeScan meter is never written; and the meter failing in
/// each way the conversation can.
final class VerioSimulatorTests: XCTestCase {
    /// 2026-03-09 07:15:00 local, in the meter's seconds since 2000-01-01.
    static let newest: UInt32 = 826_355_700

    static func meter(_ records: [VerioRecord], unit: UInt8 = 0, vendor: String = VerioDriver.vendor) -> VerioMeterSimulator {
        let host = Date(timeIntervalSince1970: TimeInterval(Int64(newest) + VerioSession.epochOffset + 3600 + 90))
        var tick = 0.0
        return VerioMeterSimulator(
            meter: VerioMeter(
                serial: "RPT1234ABC", model: "OneTouch Verio Reflect", unitParameter: unit, clock: newest + 3600, records: records, vendor: vendor),
            productID: 0x000C,
            hostClock: {
                tick += 0.001
                return host.addingTimeInterval(tick)
            })
    }

    func readRecordReplay(_ meter: VerioMeterSimulator) throws -> [GlucoseDownload] {
        try UnitTests.readRecordReplay(VerioDriver.self, meter, hostClock: meter.hostClock).downloads
    }

    private func summary(_ download: GlucoseDownload) -> [String] {
        download.glucose.map {
            "\($0.recordKey) \(CivilDate.wallClock($0.deviceSeconds)) \($0.value) \($0.unit.rawValue) \($0.flag?.rawValue ?? "-") \($0.note ?? "-")"
        }
    }

    func testRecordsLiveReplayedAndDecoded() throws {
        let records = VerioMeter.history(
            count: 6, newest: Self.newest, values: [99, 181, 600, 20, 120, 54], flags: [4: VerioRecord.controlSolution], meals: [0: 1, 1: 2])
        let meter = Self.meter(records)
        for download in try readRecordReplay(meter) {
            XCTAssertEqual(download.source, DeviceSource(family: "verio", serial: "RPT1234ABC", model: "OneTouch Verio Reflect"))
            XCTAssertEqual(
                summary(download),
                [
                    "result:100 2026-03-08T16:15:00 54.0 mg/dL - -",
                    "result:102 2026-03-08T22:15:00 20.0 mg/dL LO -",
                    "result:103 2026-03-09T01:15:00 600.0 mg/dL HI -",
                    "result:104 2026-03-09T04:15:00 181.0 mg/dL - after meal",
                    "result:105 2026-03-09T07:15:00 99.0 mg/dL - before meal",
                ])
            XCTAssertEqual(download.events, [ImportEvent(name: "control-solution", count: 1)])
            XCTAssertEqual(download.recordsRead, 6)
            XCTAssertEqual(download.cursors, ["result": 105])
            XCTAssertEqual(download.clock.deviceNow, 1_773_040_500 + 3600)
            XCTAssertEqual(download.clock.hostNow.map { Int64($0.timeIntervalSince1970) }, 1_773_040_500 + 3600 + 90)
            XCTAssertEqual(download.notes, [])
        }
        // Only read commands were written, each to its register block.
        XCTAssertEqual(Set(meter.meter.writes.map(\.lba)), [3, 4])
        for command in meter.meter.commands {
            XCTAssertNotNil(VerioCommand(message: command, block: command[1] == 0x04 ? 4 : 3), Hex.encode(command))
        }
    }

    func testMillimolesPerLiterMeterStoresMilligrams() throws {
        for download in try readRecordReplay(Self.meter(VerioMeter.history(count: 2, newest: Self.newest, values: [99, 180]), unit: 1)) {
            XCTAssertEqual(download.glucose.map(\.value), [180, 99])
            XCTAssertEqual(Set(download.glucose.map(\.unit)), [.milligramsPerDeciliter])
            XCTAssertEqual(download.notes, ["the meter displays mmol/L; its records are in mg/dL and are stored as it sent them"])
        }
    }

    func testEmptyAndFullMemory() throws {
        for download in try readRecordReplay(Self.meter([])) {
            XCTAssertEqual(download.glucose, [])
            XCTAssertEqual(download.notes, ["the meter's memory is empty"])
        }
        let values = (0..<500).map { UInt16(40 + ($0 * 37) % 361) }
        let full = try VerioDriver.download(over: Self.meter(VerioMeter.history(count: 500, newest: Self.newest, values: values)), context: .fresh)
        XCTAssertEqual(full.glucose.map(\.value), values.reversed().map(Double.init))
        XCTAssertEqual(Set(full.glucose.map(\.recordKey)).count, 500)
    }

    /// A disk with the Verio's ids whose INQUIRY names another vendor, or whose first block lacks
    /// the signature: refused, and nothing written.
    func testDiskThatIsNotAMeterIsNeverWritten() throws {
        let other = Self.meter(VerioMeter.history(count: 2, newest: Self.newest, values: [99]), vendor: "Kingston")
        XCTAssertThrowsError(try VerioDriver.download(over: other, context: .fresh)) {
            XCTAssertEqual(
                "\($0)", "2766:000c is not a LifeScan meter: SCSI INQUIRY names the vendor \"Kingston\", not \"LifeScan\"; nothing was written to it")
        }
        XCTAssertTrue(other.meter.writes.isEmpty)
        XCTAssertEqual(other.server.opcodes, [SCSICommand.inquiryOpcode])

        let blank = Self.meter([])
        blank.meter.write(0, [UInt8](repeating: 0, count: 512))
        let before = blank.meter.writes.count
        XCTAssertThrowsError(try VerioDriver.download(over: blank, context: .fresh)) {
            XCTAssertEqual(
                "\($0)",
                "2766:000c is not a LifeScan meter: its first block holds \"................\" at byte 43, not \"LIFESCAN   FAT16\"; nothing was written to it"
            )
        }
        XCTAssertEqual(blank.meter.writes.count, before)
    }

    func testSpoiltCRCNamesTheReply() {
        let meter = Self.meter(VerioMeter.history(count: 3, newest: Self.newest, values: [99]))
        meter.meter.spoiltReplies = [6]
        XCTAssertThrowsError(try VerioDriver.download(over: meter, context: .fresh)) {
            XCTAssertTrue("\($0)".hasPrefix("reply to READ RECORD 1 from 2766:000c (block 3) fails its CRC-16/CCITT-FALSE"), "\($0)")
        }
    }

    func testMeterStopsAnsweringOrIsUnplugged() {
        let silent = Self.meter(VerioMeter.history(count: 3, newest: Self.newest, values: [99]))
        silent.silentAfterTransfers = 28
        XCTAssertThrowsError(try VerioDriver.download(over: silent, context: .fresh)) {
            XCTAssertEqual(
                "\($0)", "the meter stopped answering while the host waited for the reply to READ RTC (USB transfer on endpoint 0x81 timed out)")
        }
        let unplugged = Self.meter(VerioMeter.history(count: 3, newest: Self.newest, values: [99]))
        unplugged.unplugAfterTransfers = 40
        XCTAssertThrowsError(try VerioDriver.download(over: unplugged, context: .fresh)) {
            XCTAssertEqual("\($0)", "the device was disconnected during a transfer (simulated Verio unplugged)")
        }
    }

    /// With the newest stored record known, the host reads records only down to it.
    func testCursorStopsAtTheStoredRecord() throws {
        let meter = Self.meter(VerioMeter.history(count: 10, newest: Self.newest, values: [99, 100]))
        let context = DownloadContext(cursors: { _ in ["result": 106] })
        let download = try VerioDriver.download(over: meter, context: context)
        XCTAssertEqual(download.glucose.map(\.index), [106, 107, 108, 109])
        XCTAssertEqual(meter.meter.commands.filter { $0[1] == 0x31 }.count, 4)
        // The count the lab keys its faults on.
        XCTAssertEqual(meter.meter.recordCommands, 4)
    }
}
