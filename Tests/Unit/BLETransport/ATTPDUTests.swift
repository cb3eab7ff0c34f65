import CaptureBluetooth
import Foundation
import TestSupport
import Transport
import XCTest

@testable import Transport

/// ATT PDUs decoded from real captured bytes and encoded back byte for byte.
final class ATTPDUTests: XCTestCase {
    func testDecodeAndEncodeCapturedPDUs() throws {
        let cases: [(String, ATTPDU)] = [
            ("024100", .exchangeMTURequest(clientMTU: 65)),
            ("034100", .exchangeMTUResponse(serverMTU: 65)),
            ("100100ffff0028", .readByGroupTypeRequest(start: 1, end: 0xFFFF, type: .primaryService)),
            (
                "1106100017000d1820002a001f18",
                .readByGroupTypeResponse([
                    ATTGroupValue(start: 0x10, end: 0x17, value: [0x0D, 0x18]), ATTGroupValue(start: 0x20, end: 0x2A, value: [0x1F, 0x18]),
                ])
            ),
            ("01102b000a", .errorResponse(request: 0x10, handle: 0x2B, error: .attributeNotFound)),
            ("08100017000328", .readByTypeRequest(start: 0x10, end: 0x17, type: .characteristicDeclaration)),
            (
                "09071100101200372a1400021500382a1600081700392a",
                .readByTypeResponse([
                    ATTHandleValue(handle: 0x11, value: [0x10, 0x12, 0x00, 0x37, 0x2A]),
                    ATTHandleValue(handle: 0x14, value: [0x02, 0x15, 0x00, 0x38, 0x2A]),
                    ATTHandleValue(handle: 0x16, value: [0x08, 0x17, 0x00, 0x39, 0x2A]),
                ])
            ),
            ("0413001300", .findInformationRequest(start: 0x13, end: 0x13)),
            ("050113000229", .findInformationResponse([ATTHandleUUID(handle: 0x13, uuid: .clientCharacteristicConfiguration)])),
            ("0a1500", .readRequest(handle: 0x15)),
            ("0b01", .readResponse(value: [0x01])),
            ("0c15001600", .readBlobRequest(handle: 0x15, offset: 0x16)),
            ("1213000100", .writeRequest(handle: 0x13, value: [0x01, 0x00])),
            ("13", .writeResponse),
            ("52110055aa", .writeCommand(handle: 0x11, value: [0x55, 0xAA])),
            ("1b120016480004", .handleValueNotification(handle: 0x12, value: [0x16, 0x48, 0x00, 0x04])),
            ("1d290005000200", .handleValueIndication(handle: 0x29, value: [0x05, 0x00, 0x02, 0x00])),
            ("1e", .handleValueConfirmation),
            ("0610001700002800180d", .findByTypeValueRequest(start: 0x10, end: 0x17, type: 0x2800, value: [0x00, 0x18, 0x0D])),
            ("0710001700", .findByTypeValueResponse([ATTHandleRange(start: 0x10, end: 0x17)])),
            ("1801", .other(opcode: 0x18, parameters: [0x01])),
        ]
        for (hex, pdu) in cases {
            let bytes = hexBytes(hex)
            XCTAssertEqual(try ATTPDU(bytes: bytes), pdu, hex)
            XCTAssertEqual(pdu.bytes, bytes, hex)
        }
        // A 128-bit Find Information entry (format 2) and a 128-bit service UUID.
        let vendor = BluetoothUUID("0000fee0-0000-3512-2118-0009af100700")!
        let info = ATTPDU.findInformationResponse([ATTHandleUUID(handle: 0x21, uuid: vendor)])
        XCTAssertEqual(info.bytes[1], 2)
        XCTAssertEqual(try ATTPDU(bytes: info.bytes), info)
        let group = ATTPDU.readByGroupTypeResponse([ATTGroupValue(start: 1, end: 9, value: vendor.littleEndianBytes)])
        XCTAssertEqual(group.bytes[1], 20)
        XCTAssertEqual(try ATTPDU(bytes: group.bytes), group)
    }

    func testMalformedPDUsAreNamed() {
        let cases: [(String, String)] = [
            ("", "an ATT PDU needs an opcode"),
            ("01102b", "Error Response needs 4 parameter bytes, found 2"),
            ("0907110010120037", "Read By Type Response: entries of 7 bytes do not fill 6 bytes (minimum 2)"),
            ("050313000229", "Find Information Response: unknown format 3 (expected 1 or 2)"),
            ("0501130002", "Find Information Response: entries of 4 bytes do not fill 3 bytes"),
            ("1b12", "Handle Value Notification needs at least 2 parameter bytes, found 1"),
            ("08100017000328aa", "Read By Type Request: a UUID of 3 bytes (expected 2 or 16)"),
            ("1300", "Write Response needs 0 parameter bytes, found 1"),
        ]
        for (hex, problem) in cases {
            XCTAssertThrowsError(try ATTPDU(bytes: hexBytes(hex)), hex) { error in
                XCTAssertEqual(error as? BLEError, .malformedPDU(bytes: hexBytes(hex), problem: problem))
            }
        }
        XCTAssertEqual(
            BLEError.malformedPDU(bytes: hexBytes("01102b"), problem: "x").description, "malformed ATT PDU 01 10 2B: x")
    }

    func testErrorNamesAndMessages() {
        XCTAssertEqual(ATTErrorCode.readNotPermitted.description, "Read Not Permitted (0x02)")
        XCTAssertEqual(ATTErrorCode(rawValue: 0x81).description, "Application Error (defined by the service) (0x81)")
        XCTAssertEqual(ATTErrorCode.cccdImproperlyConfigured.name, "Client Characteristic Configuration Descriptor Improperly Configured")
        XCTAssertEqual(ATTErrorCode(rawValue: 0x14).name, "Reserved")
        XCTAssertEqual(
            BLEError.attError(request: 0x0A, handle: 0x29, code: .readNotPermitted).description,
            "the device refused the Read Request on handle 0x0029: Read Not Permitted (0x02)")
        XCTAssertEqual(
            BLEError.attError(request: 0x12, handle: 0x23, code: .insufficientEncryption).description,
            "the device refused the Write Request on handle 0x0023: Insufficient Encryption (0x0F) — pair the device first "
                + "(bluetoothctl pair ADDRESS) so the link can be encrypted")
        XCTAssertEqual(ATTOpcode.readByGroupTypeRequest.response, .readByGroupTypeResponse)
        XCTAssertNil(ATTOpcode.handleValueNotification.response)
        XCTAssertTrue(ATTOpcode.isAnswer(hexBytes("010a290002"), to: 0x0A))
        XCTAssertFalse(ATTOpcode.isAnswer(hexBytes("010a290002"), to: 0x08))
        XCTAssertTrue(ATTOpcode.isAnswer(hexBytes("0b01"), to: 0x0A))
        XCTAssertFalse(ATTOpcode.isAnswer(hexBytes("1e"), to: 0x1D), "a confirmation is not a response")
    }

    /// The treadmill capture's ATT PDUs by kind, as its PROVENANCE.md counts them.
    func testTreadmillPDUsByKind() throws {
        let link = try XCTUnwrap(LECapture.read(contentsOf: Fixtures.url("ble/horizon-74-at-ble/btsnoop_hci.log")).connections.first)
        var sent: [ATTOpcode: Int] = [:]
        var received: [ATTOpcode: Int] = [:]
        var writes: [UInt16: [[UInt8]]] = [:]
        var notifications: [UInt16: Int] = [:]
        for captured in link.att {
            let pdu = try ATTPDU(bytes: captured.bytes)
            let opcode = try XCTUnwrap(ATTOpcode(rawValue: pdu.opcode))
            if captured.direction == .sent { sent[opcode, default: 0] += 1 } else { received[opcode, default: 0] += 1 }
            if case .writeRequest(let handle, let value) = pdu { writes[handle, default: []].append(value) }
            if case .handleValueNotification(let handle, _) = pdu { notifications[handle, default: 0] += 1 }
        }
        XCTAssertEqual(sent, [.readByGroupTypeRequest: 3, .readByTypeRequest: 19, .findInformationRequest: 23, .writeRequest: 261])
        XCTAssertEqual(
            received,
            [
                .readByGroupTypeResponse: 2, .readByTypeResponse: 9, .findInformationResponse: 23, .errorResponse: 11,
                .writeResponse: 261, .handleValueNotification: 1047,
            ])
        XCTAssertEqual(writes[0x0015], [[0x01, 0x00]])
        XCTAssertEqual(writes[0x0011]?.count, 260)
        XCTAssertEqual(notifications, [0x0014: 786, 0x0012: 261])
    }
}
