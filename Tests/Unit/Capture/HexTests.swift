import Capture
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
}
