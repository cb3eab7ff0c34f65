import CaptureBluetooth
import Transport
import XCTest

/// `ADDRESS[,public|random]`: the one way a Bluetooth LE device is written, read by one parser.
final class BLEPeerSyntaxTests: XCTestCase {
    let address = BluetoothAddress("C0:11:22:33:44:55")!

    func testReadsAddressAndType() throws {
        XCTAssertEqual(try BLEPeer(parsing: "C0:11:22:33:44:55"), BLEPeer(address: address, addressType: .random), "random by default")
        XCTAssertEqual(try BLEPeer(parsing: "c0:11:22:33:44:55,public"), BLEPeer(address: address, addressType: .public))
        XCTAssertEqual(try BLEPeer(parsing: " C0-11-22-33-44-55 , RANDOM "), BLEPeer(address: address, addressType: .random))
    }

    func testWritesWhatItReads() throws {
        for type in [LEAddressType.public, .random] {
            let peer = BLEPeer(address: address, addressType: type, name: "SynBand")
            XCTAssertEqual(try BLEPeer(parsing: peer.argument), BLEPeer(address: address, addressType: type))
        }
        XCTAssertEqual(BLEPeer(address: address, addressType: .public).argument, "C0:11:22:33:44:55,public")
        XCTAssertEqual(BLEPeer(address: address, addressType: .randomIdentity).argument, "C0:11:22:33:44:55,random")
        XCTAssertEqual(BLEPeer(address: address, addressType: .publicIdentity).argument, "C0:11:22:33:44:55,public")
    }

    /// Each mistake is its own case, and the message names the part that is wrong.
    func testTypedErrors() {
        func error(_ text: String) -> BLEPeerSyntaxError? {
            do {
                _ = try BLEPeer(parsing: text)
                return nil
            } catch {
                return error
            }
        }
        XCTAssertEqual(error(""), .empty)
        XCTAssertEqual(error("  "), .empty)
        XCTAssertEqual(error("C0:11:22"), .notAnAddress("C0:11:22", in: "C0:11:22"))
        XCTAssertEqual(error("C0:11:22:33:44:GG,public"), .notAnAddress("C0:11:22:33:44:GG", in: "C0:11:22:33:44:GG,public"))
        XCTAssertEqual(error("C0:11:22:33:44:55,static"), .unknownAddressType("static", in: "C0:11:22:33:44:55,static"))
        XCTAssertEqual(error("C0:11:22:33:44:55,"), .unknownAddressType("", in: "C0:11:22:33:44:55,"))
        XCTAssertEqual(error("C0:11:22:33:44:55,public,random"), .tooManyParts("C0:11:22:33:44:55,public,random"))
        XCTAssertEqual(
            error("C0:11:22:33:44:55,static")?.description, #""C0:11:22:33:44:55,static": the address type is public or random, not "static""#)
        XCTAssertEqual(error("C0:11:22")?.description, #""C0:11:22": "C0:11:22" is not a Bluetooth address (six hex pairs: C0:11:22:33:44:55)"#)
        XCTAssertEqual(
            error("")?.description, "no Bluetooth device given: write ADDRESS or ADDRESS,public or ADDRESS,random, e.g. C0:11:22:33:44:55,random")
    }
}
