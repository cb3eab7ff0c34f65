import Transport
import XCTest

final class HexTests: XCTestCase {
    func testDecode() {
        XCTAssertEqual(Hex.decode("01 06 00 0A 5E 65"), [0x01, 0x06, 0x00, 0x0A, 0x5E, 0x65])
        XCTAssertEqual(Hex.decode("0106000a5e65"), [0x01, 0x06, 0x00, 0x0A, 0x5E, 0x65])
        XCTAssertEqual(Hex.decode("  ff\tFF  "), [0xFF, 0xFF])
        XCTAssertEqual(Hex.decode(""), [])
        XCTAssertEqual(Hex.decode("out,01 02".split(separator: ",")[1]), [0x01, 0x02])
        XCTAssertNil(Hex.decode("0G"))
        XCTAssertNil(Hex.decode("123"))
        XCTAssertNil(Hex.decode("1 23"))
        XCTAssertNil(Hex.decode("01-02"))
        XCTAssertNil(Hex.decode("é1"))
    }

    func testEncode() {
        XCTAssertEqual(Hex.encode([0x01, 0xAB, 0x5e]), "01 AB 5E")
        XCTAssertEqual(Hex.encode([0x01, 0xAB], separator: ""), "01AB")
        XCTAssertEqual(Hex.encode([]), "")
        let all = (0...255).map { UInt8($0) }
        XCTAssertEqual(Hex.decode(Substring(Hex.encode(all))), all)
    }

    /// The forms messages use: padded digits, C-style literals and a preview of a few bytes.
    func testDigitsLiteralsAndPreviews() {
        XCTAssertEqual(Hex.digits(UInt16(0x2A37), count: 4), "2A37")
        XCTAssertEqual(Hex.digits(UInt32(0xBEEF), count: 8), "0000BEEF")
        XCTAssertEqual(Hex.digits(UInt32(0x1_2345), count: 4), "12345")
        XCTAssertEqual(Hex.literal(UInt16(0x2A)), "0x002A")
        XCTAssertEqual(Hex.literal(UInt8(0x0C), digits: 2), "0x0C")
        XCTAssertEqual(Hex.literal(UInt16(0xBD54)), "0xBD54")
        XCTAssertEqual(Hex.preview([0x0A, 0x5E]), "0A 5E")
        XCTAssertEqual(Hex.preview((0..<17).map { UInt8($0) }), "00 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F …")
        XCTAssertEqual(Hex.preview([0x01, 0x02, 0x03][1...], limit: 1), "02 …")
    }
}
