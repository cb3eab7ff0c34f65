import CaptureUSB
import Foundation
import TestSupport
import Transport
import XCTest

final class USBPcapTests: XCTestCase {
    func testControlAndBulkTransfers() throws {
        var file = PcapFile(linkType: 249)
        func add(_ packet: [UInt8], _ micros: UInt32) { file.add(packet, seconds: 1_700_000_000, fraction: micros) }
        // GET_DESCRIPTOR: setup stage down, data stage up, status stage up.
        add(
            usbpcapPacket(
                irpId: 0xA000, function: 0x0B, completion: false, endpoint: 0x80, transfer: 2, stage: 0,
                data: Scenario.getDescriptor), 100_000)
        add(
            usbpcapPacket(
                irpId: 0xA000, function: 0x0B, completion: true, endpoint: 0x80, transfer: 2, stage: 1,
                data: Scenario.deviceDescriptor), 100_200)
        add(usbpcapPacket(irpId: 0xA000, function: 0x0B, completion: true, endpoint: 0x80, transfer: 2, stage: 2), 100_250)
        // Bulk OUT: logged once, on its way down; bulk IN: once, on its way up.
        add(
            usbpcapPacket(
                irpId: 0xB000, function: 0x09, completion: false, endpoint: 0x02, transfer: 3, data: Scenario.bulkOut),
            200_500)
        add(
            usbpcapPacket(
                irpId: 0xC000, function: 0x09, completion: true, endpoint: 0x83, transfer: 3, data: Scenario.bulkIn),
            301_000)
        // A bulk IN that failed because the device went away (USBD_STATUS_DEVICE_GONE).
        add(
            usbpcapPacket(
                irpId: 0xD000, status: 0xC000_7000, function: 0x09, completion: true, endpoint: 0x83, transfer: 3),
            400_000)

        let capture = try USBCaptureReader.parse(file.bytes, name: "win.pcap")
        XCTAssertEqual(capture.format, .pcap(linkType: 249))
        Scenario.assertDecoded(Array(capture.transfers.prefix(3)), packetNumbers: [2, 4, 5], device: 3)
        XCTAssertEqual(capture.transfers.count, 4)
        let failed = capture.transfers[3]
        XCTAssertEqual(failed.status, -108)
        XCTAssertEqual(failed.direction, .in)
        XCTAssertEqual(failed.data, [])
        XCTAssertEqual(failed.packetNumber, 6)
    }

    func testOutCompletionUpdatesStatusAndControlOutKeepsItsData() throws {
        var file = PcapFile(linkType: 249)
        file.add(
            usbpcapPacket(irpId: 1, function: 0x09, completion: false, endpoint: 0x01, transfer: 3, data: [0x10, 0x20]),
            seconds: 10, fraction: 0)
        file.add(
            usbpcapPacket(irpId: 1, status: 0xC000_0004, function: 0x09, completion: true, endpoint: 0x01, transfer: 3),
            seconds: 10, fraction: 7)
        // SET_LINE_CODING-like control OUT with 7 data bytes.
        let setup = hexBytes("21 20 00 00 00 00 07 00")
        let lineCoding = hexBytes("80 25 00 00 00 00 08")
        file.add(
            usbpcapPacket(irpId: 2, function: 0x1B, completion: false, endpoint: 0x00, transfer: 2, stage: 0, data: setup),
            seconds: 11, fraction: 0)
        file.add(
            usbpcapPacket(
                irpId: 2, function: 0x1B, completion: false, endpoint: 0x00, transfer: 2, stage: 1, data: lineCoding),
            seconds: 11, fraction: 1)
        file.add(
            usbpcapPacket(irpId: 2, function: 0x1B, completion: true, endpoint: 0x00, transfer: 2, stage: 2),
            seconds: 11, fraction: 2)

        let transfers = try USBCaptureReader.parse(file.bytes, name: "win2.pcap").transfers
        XCTAssertEqual(transfers.count, 2)
        XCTAssertEqual(transfers[0].data, [0x10, 0x20])
        XCTAssertEqual(transfers[0].status, -32)
        Scenario.assertTime(transfers[0].timestamp, 10.000007)
        XCTAssertEqual(transfers[1].type, .control)
        XCTAssertEqual(transfers[1].direction, .out)
        XCTAssertEqual(transfers[1].setup, setup)
        XCTAssertEqual(transfers[1].data, lineCoding)
        XCTAssertEqual(transfers[1].packetNumber, 4)
        Scenario.assertTime(transfers[1].timestamp, 11.000002)
    }

    func testShortUSBPcapHeaderIsAnError() {
        var file = PcapFile(linkType: 249)
        file.add([27, 0, 1, 2, 3], seconds: 1, fraction: 0)
        let error = Scenario.captureError { () throws(CaptureError) in
            try USBCaptureReader.parse(file.bytes, name: "short.pcap")
        }
        XCTAssertEqual(
            error, .badPacketHeader(file: "short.pcap", packet: 1, offset: 24, kind: "USBPcap", needed: 27, found: 5))
    }
}
