import Drivers
import TestSupport
import XCTest

/// The CGMS E2E-CRC (CRC-16/MCRF4XX) against the check values of Android-BLE-Common-Library CRC16Test.
final class E2ECRCTests: XCTestCase {
    func testCheckValues() {
        XCTAssertEqual(E2ECRC.checksum(Array("123456789".utf8)), 0x6F91)
        XCTAssertEqual(E2ECRC.checksum(Array("A".utf8)), 0x5C0A)
        XCTAssertEqual(E2ECRC.checksum(hexBytes("3E 01 02 03 04 05 06 07 08 09")), 0x2F01)
        XCTAssertEqual(E2ECRC.checksum(hexBytes("0F E3 D2 E4 05 00 02 14 FF 02 F0 E5 F3")), 0x3F8E)
        XCTAssertEqual(E2ECRC.checksum(hexBytes("08 00 0C 10 06 00")), 0x6F59)
        XCTAssertEqual(E2ECRC.checksum([UInt8]()), 0xFFFF, "the seed, over nothing")
    }

    func testAppendedCRCIsLittleEndian() {
        XCTAssertEqual(E2ECRC.appending(to: hexBytes("0F E3 D2 E4 05 00 02 14 FF 02 F0 E5 F3")).suffix(2), [0x8E, 0x3F])
        XCTAssertEqual(E2ECRC.appending(to: hexBytes("08 00 0C 10 06 00")), hexBytes("08 00 0C 10 06 00 59 6F"))
    }
}
