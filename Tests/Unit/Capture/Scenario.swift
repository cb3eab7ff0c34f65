import CaptureUSB
import Foundation
import TestSupport
import Transport
import XCTest

/// The standard exchange used across reader tests: GET_DESCRIPTOR(device) answered with a
/// Dexcom-like descriptor (22A3:0047), a bulk OUT on 0x02 and its bulk IN answer on 0x83.
enum Scenario {
    static let getDescriptor = hexBytes("80 06 00 01 00 00 12 00")
    static let deviceDescriptor = hexBytes("12 01 00 02 00 00 00 40 A3 22 47 00 00 01 01 02 03 01")
    static let bulkOut = hexBytes("01 06 00 0A 5E 65")
    static let bulkIn = hexBytes("01 06 00 01 35 D4")
    static let seconds: Int64 = 1_700_000_000

    /// Six usbmon events: S/C control IN, S/C bulk OUT, S/C bulk IN.
    static var events: [UsbmonEvent] {
        [
            UsbmonEvent(
                id: 0xFFFF_8880_1234_0100, event: "S", type: 2, endpoint: 0x80, setup: getDescriptor,
                seconds: seconds, micros: 100_000, status: -115, length: 18),
            UsbmonEvent(
                id: 0xFFFF_8880_1234_0100, event: "C", type: 2, endpoint: 0x80, seconds: seconds, micros: 100_250,
                length: 18, data: deviceDescriptor),
            UsbmonEvent(
                id: 0xFFFF_8880_1234_0200, event: "S", type: 3, endpoint: 0x02, seconds: seconds, micros: 200_000,
                status: -115, length: 6, data: bulkOut),
            UsbmonEvent(
                id: 0xFFFF_8880_1234_0200, event: "C", type: 3, endpoint: 0x02, seconds: seconds, micros: 200_500,
                length: 6),
            UsbmonEvent(
                id: 0xFFFF_8880_1234_0300, event: "S", type: 3, endpoint: 0x83, seconds: seconds, micros: 300_000,
                status: -115, length: 64),
            UsbmonEvent(
                id: 0xFFFF_8880_1234_0300, event: "C", type: 3, endpoint: 0x83, seconds: seconds, micros: 301_000,
                length: 6, data: bulkIn),
        ]
    }

    /// The scenario's six events as a pcap file.
    static func pcap(bigEndian: Bool = false, nanoseconds: Bool = false, headerLength: Int = 64) -> [UInt8] {
        var file = PcapFile(bigEndian: bigEndian, nanoseconds: nanoseconds, linkType: headerLength == 64 ? 220 : 189)
        for event in events { file.add(event, headerLength: headerLength) }
        return file.bytes
    }

    /// Checks the three transfers the scenario must decode to, field by field.
    /// `times` are the expected completion times (seconds since 1970), nil where none.
    static func assertDecoded(
        _ transfers: [USBTransfer], packetNumbers: [Int] = [2, 3, 6], bus: UInt16 = 1, device: UInt8 = 5,
        times: [Double?] = [1_700_000_000.100250, 1_700_000_000.200500, 1_700_000_000.301000],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        guard transfers.count == 3 else {
            return XCTFail("expected 3 transfers, got \(transfers.count): \(transfers)", file: file, line: line)
        }
        let (control, out, answer) = (transfers[0], transfers[1], transfers[2])

        XCTAssertEqual(control.type, .control, file: file, line: line)
        XCTAssertEqual(control.direction, .in, file: file, line: line)
        XCTAssertEqual(control.endpoint, 0x80, file: file, line: line)
        XCTAssertEqual(control.setup, getDescriptor, file: file, line: line)
        XCTAssertEqual(control.data, deviceDescriptor, file: file, line: line)
        XCTAssertEqual(UInt16(control.data[8]) | UInt16(control.data[9]) << 8, 0x22A3, "idVendor", file: file, line: line)
        XCTAssertEqual(UInt16(control.data[10]) | UInt16(control.data[11]) << 8, 0x0047, "idProduct", file: file, line: line)

        XCTAssertEqual(out.type, .bulk, file: file, line: line)
        XCTAssertEqual(out.direction, .out, file: file, line: line)
        XCTAssertEqual(out.endpoint, 0x02, file: file, line: line)
        XCTAssertNil(out.setup, file: file, line: line)
        XCTAssertEqual(out.data, bulkOut, file: file, line: line)

        XCTAssertEqual(answer.type, .bulk, file: file, line: line)
        XCTAssertEqual(answer.direction, .in, file: file, line: line)
        XCTAssertEqual(answer.endpoint, 0x83, file: file, line: line)
        XCTAssertEqual(answer.data, bulkIn, file: file, line: line)

        XCTAssertEqual(transfers.map(\.packetNumber), packetNumbers, file: file, line: line)
        for (index, transfer) in transfers.enumerated() {
            XCTAssertEqual(transfer.bus, bus, "transfer \(index) bus", file: file, line: line)
            XCTAssertEqual(transfer.device, device, "transfer \(index) device", file: file, line: line)
            XCTAssertEqual(transfer.status, 0, "transfer \(index) status", file: file, line: line)
            XCTAssertFalse(transfer.isTruncated, "transfer \(index) truncated", file: file, line: line)
            assertTime(transfer.timestamp, times[index], file: file, line: line)
        }
    }

    /// Compares a timestamp with an expected time to the microsecond.
    static func assertTime(_ actual: Date?, _ expected: Double?, file: StaticString = #filePath, line: UInt = #line) {
        guard let expected else { return XCTAssertNil(actual, file: file, line: line) }
        guard let actual else { return XCTFail("missing timestamp, expected \(expected)", file: file, line: line) }
        XCTAssertEqual(
            (actual.timeIntervalSince1970 * 1e6).rounded(), (expected * 1e6).rounded(),
            "timestamp \(actual.timeIntervalSince1970) vs \(expected)", file: file, line: line)
    }

    /// Runs `body`, expecting it to throw a `CaptureError`, and returns that error.
    static func captureError(
        _ body: () throws(CaptureError) -> USBCapture, file: StaticString = #filePath, line: UInt = #line
    ) -> CaptureError? {
        do {
            let capture = try body()
            XCTFail("expected an error, read \(capture.transfers.count) transfers", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }
}
