import CBluetooth
import Foundation
import Transport
import XCTest

@testable import TransportBlueZ

#if canImport(Glibc)
    import Glibc
#endif

final class SeqPacketReaderTests: XCTestCase {
    /// A peer sends 20,000 packets back to back and hangs up while nobody takes any: far more than
    /// the socket's buffer holds, so the sender gets through only because the reader's thread
    /// keeps emptying it. Every packet then comes out in order, and the hang-up after them.
    func testABurstWaitsInMemoryAndEveryPacketComesOutBeforeTheEnd() throws {
        var pair: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair), 0)
        let (local, peer) = (pair[0], pair[1])
        defer { close(local) }
        // A sender stuck on a full buffer fails the test instead of hanging it.
        var limit = timeval(tv_sec: 60, tv_usec: 0)
        XCTAssertEqual(setsockopt(peer, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size)), 0)
        var buffer: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        XCTAssertEqual(getsockopt(local, SOL_SOCKET, SO_RCVBUF, &buffer, &length), 0)

        let reader = SeqPacketReader(fd: local) { reason in .disconnected("the test's peer: \(reason)") }
        let count = 20_000
        XCTAssertGreaterThan(count * 20, Int(buffer), "the burst must not fit the socket's buffer")
        for index in 0..<count {
            // A Heart Rate Measurement notification (handle 0x0010) carrying the packet's number.
            let packet: [UInt8] = [0x1B, 0x10, 0x00, 0x16, UInt8(index & 0xFF), UInt8(index >> 8), 0x00, 0x04]
            let sent = packet.withUnsafeBytes { send(peer, $0.baseAddress, $0.count, 0) }
            XCTAssertEqual(sent, packet.count, "packet \(index) was not sent: \(String(cString: strerror(errno)))")
            if sent != packet.count { break }
        }
        close(peer)

        for index in 0..<count {
            guard let packet = try reader.take(timeout: .seconds(60)) else { return XCTFail("packet \(index) never came") }
            XCTAssertEqual(Int(packet.bytes[4]) | Int(packet.bytes[5]) << 8, index)
            if Int(packet.bytes[4]) | Int(packet.bytes[5]) << 8 != index { break }
        }
        XCTAssertThrowsError(try reader.take(timeout: .seconds(60))) { error in
            XCTAssertEqual("\(error)", "\(BLEError.disconnected("the test's peer: it closed the connection"))")
        }
        reader.stop()
    }

    /// Stopping the reader while the peer is still connected ends its thread; the socket stays
    /// the caller's.
    func testStopEndsTheThreadWhileThePeerIsConnected() throws {
        var pair: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair), 0)
        defer {
            close(pair[0])
            close(pair[1])
        }
        let reader = SeqPacketReader(fd: pair[0]) { reason in .disconnected(reason) }
        let packet: [UInt8] = [0x1B, 0x10, 0x00, 0x2A]
        XCTAssertEqual(packet.withUnsafeBytes { send(pair[1], $0.baseAddress, $0.count, 0) }, packet.count)
        XCTAssertEqual(try reader.take(timeout: .seconds(60))?.bytes, packet)
        reader.stop()
        XCTAssertEqual(reader.waiting, 0)
        XCTAssertNotEqual(fcntl(pair[0], F_GETFD), -1, "the socket was closed by the reader")
    }
}
