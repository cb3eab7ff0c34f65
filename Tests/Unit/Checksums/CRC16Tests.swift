import Checksums
import XCTest

/// Each catalogued CRC against its check value in Greg Cook's "Catalogue of parametrised CRC
/// algorithms" (the CRC of ASCII `123456789`), and every variant against the bit-at-a-time
/// definition at every length and alignment around the eight-byte step.
final class CRC16Tests: XCTestCase {
    static let nineDigits = Array("123456789".utf8)

    func testCatalogueCheckValues() {
        XCTAssertEqual(CRC16.xmodem.checksum(Self.nineDigits), 0x31C3)
        XCTAssertEqual(CRC16.ibm3740.checksum(Self.nineDigits), 0x29B1)
        XCTAssertEqual(CRC16.mcrf4xx.checksum(Self.nineDigits), 0x6F91)
        XCTAssertEqual(CRC16.arc.checksum(Self.nineDigits), 0xBB3D)
        XCTAssertEqual(CRC16.xmodem.name, "CRC-16/XMODEM")
        XCTAssertEqual(CRC16.arc.name, "CRC-16/ARC")
    }

    /// Entries of the catalogue that no device here uses, made from their parameters: the
    /// model is the catalogue's, not only the four named ones.
    func testOtherCatalogueEntriesFromTheirParameters() {
        let kermit = CRC16(name: "CRC-16/KERMIT", polynomial: 0x1021, initialValue: 0, reflectsInput: true, reflectsOutput: true, finalXOR: 0)
        let x25 = CRC16(
            name: "CRC-16/IBM-SDLC", polynomial: 0x1021, initialValue: 0xFFFF, reflectsInput: true, reflectsOutput: true, finalXOR: 0xFFFF)
        let modbus = CRC16(name: "CRC-16/MODBUS", polynomial: 0x8005, initialValue: 0xFFFF, reflectsInput: true, reflectsOutput: true, finalXOR: 0)
        let genibus = CRC16(
            name: "CRC-16/GENIBUS", polynomial: 0x1021, initialValue: 0xFFFF, reflectsInput: false, reflectsOutput: false, finalXOR: 0xFFFF)
        XCTAssertEqual(kermit.checksum(Self.nineDigits), 0x2189)
        XCTAssertEqual(x25.checksum(Self.nineDigits), 0x906E)
        XCTAssertEqual(modbus.checksum(Self.nineDigits), 0x4B37)
        XCTAssertEqual(genibus.checksum(Self.nineDigits), 0xD64E)
    }

    /// Known frames: a Dexcom request (ecc1/dexcom's command packets) and a CGMS value with its
    /// E2E-CRC (the Bluetooth SIG's CGM test values).
    func testKnownFrames() {
        XCTAssertEqual(CRC16.xmodem.checksum([0x01, 0x07, 0x00, 0x10, 0x04]), 0xB88B)
        XCTAssertEqual(CRC16.xmodem.checksum([0x02, 0x06, 0x06, 0x03]), 50445)
        XCTAssertEqual(CRC16.mcrf4xx.checksum(Array("A".utf8)), 0x5C0A)
        XCTAssertEqual(CRC16.mcrf4xx.appendingLittleEndian(to: Self.nineDigits).suffix(2), [0x91, 0x6F])
    }

    /// The bit-at-a-time definition of the Rocksoft model.
    static func bitwise(_ crc: CRC16, _ bytes: [UInt8]) -> UInt16 {
        func reversed(_ value: UInt16, bits: Int) -> UInt16 {
            (0..<bits).reduce(0) { $0 << 1 | (value >> $1) & 1 }
        }
        var register = crc.initialValue
        for byte in bytes {
            let fed = crc.reflectsInput ? reversed(UInt16(byte), bits: 8) : UInt16(byte)
            register ^= fed << 8
            for _ in 0..<8 { register = register & 0x8000 != 0 ? (register << 1) ^ crc.polynomial : register << 1 }
        }
        return (crc.reflectsOutput ? reversed(register, bits: 16) : register) ^ crc.finalXOR
    }

    func testEveryVariantAgreesWithTheDefinition() {
        let libreRecord = CRC16(
            name: "input reflected, output not", polynomial: 0x1021, initialValue: 0xFFFF, reflectsInput: true, reflectsOutput: false, finalXOR: 0)
        let outputOnly = CRC16(
            name: "output reflected, input not", polynomial: 0x8005, initialValue: 0x1234, reflectsInput: false, reflectsOutput: true,
            finalXOR: 0x5A5A)
        var generator = SystemRandomNumberGenerator()
        let page = (0..<600).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for crc in [CRC16.xmodem, .ibm3740, .mcrf4xx, .arc, libreRecord, outputOnly] {
            for length in 0...40 {
                for start in 0..<9 {
                    let bytes = Array(page[start..<(start + length)])
                    XCTAssertEqual(crc.checksum(bytes), Self.bitwise(crc, bytes), "\(crc.name), length \(length) from \(start)")
                    XCTAssertEqual(crc.checksum(page[start..<(start + length)]), Self.bitwise(crc, bytes), crc.name)
                }
            }
            XCTAssertEqual(crc.checksum(page), Self.bitwise(crc, page), crc.name)
            XCTAssertEqual(crc.checksum(page.lazy.map { $0 }), Self.bitwise(crc, page), "\(crc.name) of a lazy collection")
        }
    }
}
