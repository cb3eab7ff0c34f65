import Drivers
import TestSupport
import Transport
import XCTest

/// A Dexcom error's location is structured (the exchange and the capture packet) and its message
/// is made from it.
final class DexcomErrorLocationTests: XCTestCase {
    /// The EGV page-range reply of cgm-usb.md §1.2, its CRC broken, recorded at packet 41: the
    /// error names the request it answered and the packet, and a program reads both.
    func testAReplyWithABadCRCIsLocatedByItsPacket() {
        var reply = hexBytes("01 0E 00 01 DA 04 00 00 C0 05 00 00 27 85")
        reply[12] ^= 0xFF
        let location = WireLocation(message: "reply to ReadDatabasePageRange(EGVData)", packet: 41)
        XCTAssertThrowsError(try DexcomPacket.decode(reply, location: location)) { error in
            guard case DexcomError.packetCRCMismatch(let at, _, let found) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(at.packet, 41)
            XCTAssertEqual(at.message, "reply to ReadDatabasePageRange(EGVData)")
            XCTAssertEqual(found, 0x85D8)
            XCTAssertEqual(
                "\(error)",
                "CRC mismatch in the reply to ReadDatabasePageRange(EGVData) at capture packet 41: the packet says 0x85D8 but its bytes give 0x8527")
            XCTAssertNil((error as? DexcomError)?.transportError)
        }
    }

    func testLocationsReadAsBefore() {
        XCTAssertEqual(WireLocation(packet: 7).description, "at capture packet 7")
        XCTAssertEqual(WireLocation(message: "sent", packet: 3).description, "sent at capture packet 3")
        XCTAssertEqual(WireLocation(message: "reply to Ping", place: "from the receiver").description, "reply to Ping from the receiver")
        XCTAssertEqual(("from the meter" as WireLocation).description, "from the meter")
        XCTAssertEqual(WireLocation(packet: 9).with(message: "request"), WireLocation(message: "request", packet: 9))
    }

    /// A family's transport case is what the pipeline reads, through the protocol.
    func testTheTransportFailureUnderneathIsReadThroughTheProtocol() {
        let errors: [any DriverError] = [
            DexcomError.transport(.disconnected("gone")), ContourError.transport(.disconnected("gone")),
            FreeStyleError.transport(.disconnected("gone")), AccuChekError.transport(.disconnected("gone")),
            VerioError.transport(.disconnected("gone")),
        ]
        for error in errors { XCTAssertEqual(error.transportError, .disconnected("gone"), "\(type(of: error))") }
        XCTAssertNil((ContourError.noHeader as any DriverError).transportError)
    }
}
