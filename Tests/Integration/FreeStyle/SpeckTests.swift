import Drivers
import Foundation
import ImportTestSupport
import XCTest

/// Speck 64/128 against its designers' test vector, and the block cipher, the stream cipher, the
/// CMAC and the key derivation against freestyle-hid's (`freestyle_hid/_freestyle_encryption.py`).
final class SpeckTests: XCTestCase {
    /// Beaulieu, Shors, Smith, Treatman-Clark, Weeks, Wingers, "The SIMON and SPECK Families of
    /// Lightweight Block Ciphers" (2013), appendix C, Speck64/128: key 1b1a1918 13121110 0b0a0908
    /// 03020100 (l2 l1 l0 k0), plaintext 3b726574 7475432d (x y), ciphertext 8c6fa548 454e028b.
    func testPaperTestVector() {
        let cipher = Speck64_128(key: SpeckKey(hex: "1b1a1918131211100b0a090803020100")!)
        let encrypted = cipher.encrypt(x: 0x3b72_6574, y: 0x7475_432d)
        XCTAssertEqual(encrypted.x, 0x8c6f_a548)
        XCTAssertEqual(encrypted.y, 0x454e_028b)
        let decrypted = cipher.decrypt(x: encrypted.x, y: encrypted.y)
        XCTAssertEqual(decrypted.x, 0x3b72_6574)
        XCTAssertEqual(decrypted.y, 0x7475_432d)
        // The same as a block (x high), and in bytes: the reference implementation's order, the
        // plaintext being the ASCII text "-Cutter;" and the key bytes 00 01 02 03 08 09 0a 0b ….
        XCTAssertEqual(cipher.encrypt(block: 0x3b72_6574_7475_432d), 0x8c6f_a548_454e_028b)
        XCTAssertEqual(cipher.decrypt(block: 0x8c6f_a548_454e_028b), 0x3b72_6574_7475_432d)
        XCTAssertEqual(String(decoding: UInt64(0x3b72_6574_7475_432d).littleEndianBytes, as: UTF8.self), "-Cutter;")
        XCTAssertEqual(SpeckKey(hex: "0x1b1a1918131211100b0a090803020100")!.bytes.prefix(8), [0, 1, 2, 3, 8, 9, 10, 11])
    }

    func testKeyText() {
        XCTAssertEqual(SpeckKey(hex: "0x1"), SpeckKey(high: 0, low: 1))
        XCTAssertEqual(SpeckKey(hex: "ffff_ffff_ffff_ffff_0000_0000_0000_0002"), SpeckKey(high: .max, low: 2))
        XCTAssertNil(SpeckKey(hex: "0x"))
        XCTAssertNil(SpeckKey(hex: "12g4"))
        XCTAssertNil(SpeckKey(hex: String(repeating: "1", count: 33)))
        XCTAssertEqual("\(SpeckKey(high: 1, low: 2))", "SpeckKey(…)", "a key never shows in messages")
    }

    /// Values computed by freestyle-hid for keys, messages and labels chosen here; none of them is
    /// a device key.
    struct OracleValues: Decodable {
        var blocks: [String]
        var streams: [String]
        var tags: [String]
        var derived: [String]
    }

    static let keys = ["1b1a1918131211100b0a090803020100", "00000000000000000000000000000000", "f0e1d2c3b4a5968778695a4b3c2d1e0f"]
    static let ivs: [UInt64] = [0, 0xFF, 0x1234_5678_9abc_de00, 0xFFFF_FFFF_FFFF_FFFF]
    /// Messages of 1…33 bytes: the CMAC's full-last-block case (8, 16, 24, 32) and its padded one.
    static let messages: [[UInt8]] = (1...33).map { length in (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ length) } }
    static let contexts: [[UInt8]] = [Array("JCMV000-S0001".utf8), Array("JCMV000-S0001".utf8) + Array(0..<16)]
    static let labels = ["AuthrEnc", "AuthrMAC", "SessnEnc", "SessnMAC"]

    func testAgainstFreestyleHID() throws {
        let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
        let script = """
            import json
            from freestyle_hid._freestyle_encryption import SpeckEncrypt, SpeckCMAC
            keys = [\(Self.keys.map { "0x\($0)" }.joined(separator: ", "))]
            ivs = [\(Self.ivs.map { String($0) }.joined(separator: ", "))]
            messages = [bytes.fromhex(m) for m in [\(Self.messages.map { "'\(hex($0))'" }.joined(separator: ", "))]]
            contexts = [bytes.fromhex(c) for c in [\(Self.contexts.map { "'\(hex($0))'" }.joined(separator: ", "))]]
            labels = [\(Self.labels.map { "'\($0)'" }.joined(separator: ", "))]
            out = {"blocks": [], "streams": [], "tags": [], "derived": []}
            for key in keys:
                cipher = SpeckEncrypt(key)
                out["blocks"].append("%016x" % cipher.encrypt_block(0x3b7265747475432d))
                for iv in ivs:
                    # freestyle-hid takes the IV as an integer it writes big-endian into the counter block.
                    out["streams"].append(cipher.encrypt(iv, messages[-1]).hex())
                cmac = SpeckCMAC(key)
                for m in messages:
                    out["tags"].append("%016x" % cmac.sign(m))
                for label in labels:
                    for context in contexts:
                        out["derived"].append("%032x" % cmac.derive(label.encode(), context))
            print(json.dumps(out))
            """
        let oracle = try FreeStyleOracle.json(OracleValues.self, script)
        var blocks: [String] = []
        var streams: [String] = []
        var tags: [String] = []
        var derived: [String] = []
        for keyText in Self.keys {
            let key = SpeckKey(hex: keyText)!
            let cipher = Speck64_128(key: key)
            blocks.append(String(format: "%016llx", cipher.encrypt(block: 0x3b72_6574_7475_432d)))
            for iv in Self.ivs {
                streams.append(hex(cipher.applyKeystream(counter: iv.byteSwapped, to: Self.messages.last!)))
            }
            let cmac = SpeckCMAC(key: key)
            for message in Self.messages {
                tags.append(String(format: "%016llx", cmac.tag(message)))
                XCTAssertEqual(cmac.tagBytes(message), cmac.tag(message).littleEndianBytes)
            }
            for label in Self.labels {
                for context in Self.contexts {
                    let result = cmac.derive(label: Array(label.utf8), context: context)
                    derived.append(String(format: "%016llx%016llx", result.high, result.low))
                }
            }
        }
        XCTAssertEqual(blocks, oracle.blocks)
        XCTAssertEqual(blocks[0], "8c6fa548454e028b", "freestyle-hid agrees with the paper")
        XCTAssertEqual(streams, oracle.streams)
        XCTAssertEqual(tags, oracle.tags)
        XCTAssertEqual(derived, oracle.derived)
        XCTAssertEqual(tags.count, 99)
    }
}
