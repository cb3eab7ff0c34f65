import CaptureUSB
import Foundation
import TestSupport
import Transport
import XCTest

final class PcapngReaderTests: XCTestCase {
    /// Section 1 (little-endian, if_tsresol 10^-9) carries the control transfer, behind an unknown
    /// block; section 2 (big-endian, if_tsresol 2^-10) carries the bulk OUT and the bulk IN, whose
    /// completion is a Simple Packet Block.
    func testTwoSectionsResolutionsSimplePacketAndUnknownBlock() throws {
        let events = Scenario.events
        let seconds = UInt64(Scenario.seconds)
        var first = PcapngBuilder()
        first.sectionHeader()
        first.interface(linkType: 220, tsresol: 9)
        first.block(type: 0x0000_0BAD, body: [1, 2, 3, 4, 5, 6, 7, 8])
        first.enhancedPacket(interface: 0, units: seconds * 1_000_000_000 + 100_000_000, packet: events[0].bytes())
        first.enhancedPacket(interface: 0, units: seconds * 1_000_000_000 + 100_250_123, packet: events[1].bytes())

        var second = PcapngBuilder(bigEndian: true)
        second.sectionHeader()
        second.interface(linkType: 220, tsresol: 0x8A)
        second.enhancedPacket(interface: 0, units: seconds << 10 | 200, packet: events[2].bytes())
        second.enhancedPacket(interface: 0, units: seconds << 10 | 512, packet: events[3].bytes())
        second.enhancedPacket(interface: 0, units: seconds << 10 | 600, packet: events[4].bytes())
        second.simplePacket(events[5].bytes())

        let bytes = first.bytes + second.bytes
        XCTAssertEqual(Array(bytes[8..<12]), [0x4D, 0x3C, 0x2B, 0x1A])
        let capture = try USBCaptureReader.parse(bytes, name: "two.pcapng")
        XCTAssertEqual(capture.format, .pcapng(linkType: 220))
        Scenario.assertDecoded(
            capture.transfers, times: [1_700_000_000.100250123, 1_700_000_000.5, nil])
        XCTAssertEqual(
            try XCTUnwrap(capture.transfers[0].timestamp).timeIntervalSince1970, 1_700_000_000.100250123,
            accuracy: 5e-7)
    }

    func testDefaultResolutionIsMicroseconds() throws {
        var file = PcapngBuilder()
        file.sectionHeader()
        file.interface(linkType: 189)
        for event in Scenario.events {
            let units = UInt64(event.seconds) * 1_000_000 + UInt64(event.micros)
            file.enhancedPacket(interface: 0, units: units, packet: event.bytes(headerLength: 48))
        }
        let capture = try USBCaptureReader.parse(file.bytes, name: "us.pcapng")
        XCTAssertEqual(capture.format, .pcapng(linkType: 189))
        Scenario.assertDecoded(capture.transfers)
    }

    func testNonUSBInterfacesAreSkippedWhenAUSBOneExists() throws {
        var file = PcapngBuilder()
        file.sectionHeader()
        file.interface(linkType: 1)
        file.interface(linkType: 220)
        file.enhancedPacket(interface: 0, units: 1, packet: [UInt8](repeating: 0xEE, count: 60))
        for event in Scenario.events {
            file.enhancedPacket(interface: 1, units: UInt64(event.seconds) * 1_000_000 + UInt64(event.micros), packet: event.bytes())
        }
        let capture = try USBCaptureReader.parse(file.bytes, name: "mixed.pcapng")
        Scenario.assertDecoded(capture.transfers, packetNumbers: [3, 4, 7])
    }

    func testNoUSBInterfaceIsAnError() {
        var file = PcapngBuilder()
        file.sectionHeader()
        file.interface(linkType: 1)
        file.enhancedPacket(interface: 0, units: 1, packet: [0, 1, 2, 3])
        let error = Scenario.captureError { () throws(CaptureError) in
            try USBCaptureReader.parse(file.bytes, name: "eth.pcapng")
        }
        XCTAssertEqual(error, .noUSBInterface(file: "eth.pcapng", linkTypes: [1]))
        XCTAssertTrue(error?.description.contains("no USB interface") ?? false)
    }

    func testMalformedBlocks() {
        var header = PcapngBuilder()
        header.sectionHeader()  // 28 bytes

        func parse(_ tail: [UInt8]) -> CaptureError? {
            Scenario.captureError { () throws(CaptureError) in
                try USBCaptureReader.parse(header.bytes + tail, name: "bad.pcapng")
            }
        }
        var notMultiple = ByteBuilder()
        notMultiple.u32(1)
        notMultiple.u32(30)
        notMultiple.raw([UInt8](repeating: 0, count: 22))
        XCTAssertEqual(
            parse(notMultiple.bytes),
            .malformedBlock(file: "bad.pcapng", block: 2, offset: 28, problem: "total length 30 is not a multiple of 4"))

        var mismatch = ByteBuilder()
        mismatch.u32(1)
        mismatch.u32(20)
        mismatch.u32(0xDC)
        mismatch.u32(0)
        mismatch.u32(24)
        XCTAssertEqual(
            parse(mismatch.bytes),
            .malformedBlock(
                file: "bad.pcapng", block: 2, offset: 28, problem: "trailing total length 24 differs from the leading 20"))

        var tooSmall = ByteBuilder()
        tooSmall.u32(5)
        tooSmall.u32(8)
        tooSmall.u32(8)
        XCTAssertEqual(
            parse(tooSmall.bytes),
            .malformedBlock(
                file: "bad.pcapng", block: 2, offset: 28, problem: "total length 8 is smaller than the 12-byte minimum"))

        var cut = PcapngBuilder()
        cut.interface(linkType: 220)
        XCTAssertEqual(
            parse(Array(cut.bytes.prefix(16))),
            .truncated(file: "bad.pcapng", part: .block(2), offset: 28, needed: 20, remaining: 16))
    }

    func testPacketBlockForUndescribedInterfaceIsAnError() {
        var file = PcapngBuilder()
        file.sectionHeader()
        file.interface(linkType: 220)
        file.sectionHeader()  // a new section forgets the first one's interfaces
        file.enhancedPacket(interface: 0, units: 1, packet: Scenario.events[0].bytes())
        let error = Scenario.captureError { () throws(CaptureError) in
            try USBCaptureReader.parse(file.bytes, name: "lost.pcapng")
        }
        guard case .malformedBlock(_, let block, _, let problem) = error else {
            return XCTFail("unexpected \(String(describing: error))")
        }
        XCTAssertEqual(block, 4)
        XCTAssertEqual(problem, "refers to interface 0 but the section describes 0")
    }
}
