import Drivers
import TestSupport
import XCTest

/// RACP requests and responses (gatt-xml record_access_control_point).
final class RACPTests: XCTestCase {
    func testRequestEncoding() {
        XCTAssertEqual(RACPRequest.reportStoredRecords(.all).bytes, hexBytes("01 01"))
        XCTAssertEqual(RACPRequest.reportNumberOfStoredRecords(.all).bytes, hexBytes("04 01"))
        XCTAssertEqual(RACPRequest.reportStoredRecords(.timeOffsetAtLeast(600)).bytes, hexBytes("01 03 01 58 02"))
        XCTAssertEqual(RACPRequest.reportStoredRecords(.sequenceNumberAtLeast(0x1234)).bytes, hexBytes("01 03 01 34 12"))
        XCTAssertEqual(RACPRequest.reportNumberOfStoredRecords(.sequenceNumberAtLeast(7)).bytes, hexBytes("04 03 01 07 00"))
        XCTAssertEqual(RACPRequest.reportStoredRecords(.timeOffsetAtMost(10)).bytes, hexBytes("01 02 01 0A 00"))
        XCTAssertEqual(RACPRequest.reportStoredRecords(.sequenceNumbers(10...20)).bytes, hexBytes("01 04 01 0A 00 14 00"))
        XCTAssertEqual(RACPRequest.reportStoredRecords(.first).bytes, hexBytes("01 05"))
        XCTAssertEqual(RACPRequest.reportStoredRecords(.last).bytes, hexBytes("01 06"))
        XCTAssertEqual(RACPRequest.abort.bytes, hexBytes("03 00"))
        XCTAssertEqual(RACPRequest.abort.opCode, .abortOperation)
    }

    func testResponses() throws {
        XCTAssertEqual(try RACPResponse.decode(hexBytes("05 00 02 00")), .numberOfStoredRecords(2))
        XCTAssertEqual(try RACPResponse.decode(hexBytes("05 00 FF FF")), .numberOfStoredRecords(65535))
        XCTAssertEqual(try RACPResponse.decode(hexBytes("06 00 01 01")), .responseCode(requestOpCode: 1, code: .success))
        XCTAssertEqual(try RACPResponse.decode(hexBytes("06 00 01 06")), .responseCode(requestOpCode: 1, code: .noRecordsFound))
        XCTAssertEqual(try RACPResponse.decode(hexBytes("06 00 03 07")), .responseCode(requestOpCode: 3, code: .abortUnsuccessful))
    }

    func testEveryResponseCodeHasItsName() {
        let names = (1...9).map { RACPResponseCode(rawValue: UInt8($0)).description }
        XCTAssertEqual(
            names,
            [
                "success", "op code not supported", "invalid operator", "operator not supported", "invalid operand",
                "no records found", "abort unsuccessful", "procedure not completed", "operand not supported",
            ])
        XCTAssertEqual(RACPResponseCode(rawValue: 0x0A), .reserved(0x0A))
        XCTAssertEqual((0...255).map { RACPResponseCode(rawValue: UInt8($0)).rawValue }, (0...255).map { UInt8($0) })
    }

    func testMalformedResponses() {
        XCTAssertThrowsError(try RACPResponse.decode(hexBytes("05 00 02"))) { error in
            XCTAssertEqual(
                error as? BLEValueError,
                .shortPayload(
                    characteristic: .recordAccessControlPoint, field: "number of records", offset: 2, needed: 2, available: 1))
        }
        XCTAssertThrowsError(try RACPResponse.decode(hexBytes("06 01 01 01"))) { error in
            guard case .invalidField(.recordAccessControlPoint, "operator", 1, _)? = error as? BLEValueError else {
                return XCTFail("\(error)")
            }
        }
        XCTAssertThrowsError(try RACPResponse.decode(hexBytes("01 01"))) { error in
            guard case .invalidField(.recordAccessControlPoint, "op code", 0, _)? = error as? BLEValueError else {
                return XCTFail("\(error)")
            }
        }
        XCTAssertThrowsError(try RACPResponse.decode(hexBytes("06 00 01 01 00")))
    }
}
