import Foundation
import Transport

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a SOCK_SEQPACKET socket on a thread of its own as soon as anything arrives, one packet
/// at a time, into a queue in memory that ``take(timeout:)`` empties in order.
///
/// A socket that nobody reads fills its receive buffer, and for a protocol without flow control
/// (ATT notifications) the kernel then drops what arrives (net/bluetooth/l2cap_sock.c,
/// `l2cap_sock_recv_cb`). With this reader a peer sending faster than its packets are decoded
/// and stored waits in memory instead. Once the peer ends the connection, every packet read
/// before the end is taken first, then the end's error.
package final class SeqPacketReader: @unchecked Sendable {
    private let fd: Int32
    private let condition = NSCondition()
    private var packets: [ATTBearerPDU] = []
    private var next = 0
    private var ended: BLEError?
    private var stopping = false
    private var finished = false

    /// Starts reading `fd` (which the caller keeps and closes after ``stop()``); `lost` makes the
    /// error for a connection the peer ended, from the socket's reason.
    package init(fd: Int32, lost: @escaping @Sendable (String) -> BLEError) {
        self.fd = fd
        let thread = Thread { [self] in
            read(lost: lost)
            condition.lock()
            finished = true
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "glucobridge packet reader"
        thread.start()
    }

    /// The next packet, waiting at most `timeout`: nil when none arrived in that time; after the
    /// connection ended and every packet read before the end was taken, the end's error.
    package func take(timeout: Duration) throws(BLEError) -> ATTBearerPDU? {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while next == packets.count && ended == nil {
            guard condition.wait(until: deadline) else { break }
        }
        if next < packets.count {
            let packet = packets[next]
            next += 1
            // Taken packets are let go of in chunks, so that a long burst does not keep them all.
            if next >= 4096 {
                packets.removeFirst(next)
                next = 0
            }
            return packet
        }
        if let ended { throw ended }
        return nil
    }

    /// Packets read and not taken yet.
    package var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return packets.count - next
    }

    /// Ends the reading thread and waits for it: shutting the socket down wakes its poll. The
    /// socket stays open for the caller to close.
    package func stop() {
        condition.lock()
        stopping = true
        condition.unlock()
        _ = shutdown(fd, Int32(SHUT_RDWR))
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }

    private var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    private func put(_ packet: ATTBearerPDU) {
        condition.lock()
        packets.append(packet)
        condition.signal()
        condition.unlock()
    }

    private func end(_ error: BLEError) {
        condition.lock()
        ended = error
        condition.broadcast()
        condition.unlock()
    }

    private func read(lost: (String) -> BLEError) {
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, -1) < 0 {
                if errno == EINTR { continue }
                end(.socketFailed(call: "poll", reason: BluetoothSocket.message(errno)))
                return
            }
            if isStopping { return }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                put(ATTBearerPDU(bytes: Array(buffer[0..<count]), hostTime: Date()))
                continue
            }
            if isStopping { return }
            if count == 0 {
                end(lost("it closed the connection"))
                return
            }
            let code = errno
            if code == EAGAIN || code == EINTR { continue }
            end(
                BluetoothSocket.isDisconnection(code)
                    ? lost(BluetoothSocket.message(code)) : .socketFailed(call: "read", reason: BluetoothSocket.message(code)))
            return
        }
    }
}
