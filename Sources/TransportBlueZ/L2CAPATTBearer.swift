import CBluetooth
import Foundation
import Transport

#if canImport(Glibc)
    import Glibc
#endif

/// The link's security level, as `BT_SECURITY` sets it [BlueZ lib/bluetooth/bluetooth.h].
package enum BLESecurity: UInt8, Sendable, Comparable {
    /// No encryption (the default for sensors that do not need pairing).
    case low = 1
    /// Encrypted, unauthenticated ("Just Works" pairing or a stored key).
    case medium = 2
    /// Encrypted and authenticated (MITM protection).
    case high = 3
    case fips = 4

    package static func < (lhs: BLESecurity, rhs: BLESecurity) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The live bearer: an L2CAP socket on the LE ATT fixed channel (CID 4), as BlueZ's
/// btgatt-client opens it [BlueZ tools/btgatt-client.c]. The kernel creates the LE link on
/// `connect`; each read or write is one ATT PDU (SOCK_SEQPACKET). Needs no capability.
///
/// Notifications have no flow control: the kernel queues what the controller delivers on the
/// socket and drops what no longer fits its receive buffer (net/bluetooth/l2cap_sock.c,
/// `l2cap_sock_recv_cb`). So the socket gets a large receive buffer, and a thread of the
/// bearer's own reads it as soon as anything arrives, into a queue that `receive` takes from:
/// a device sending faster than the import decodes and stores waits in memory, not in the
/// kernel's buffer.
package final class L2CAPATTBearer: ATTBearer {
    package let peer: BLEPeer
    package private(set) var connectionHandle: UInt16?
    package private(set) var security: BLESecurity
    private var fd: Int32
    /// The thread that reads the socket as PDUs arrive, once connected.
    private var reader: SeqPacketReader?

    /// The receive buffer asked for: about 40,000 small notifications' worth of the kernel's
    /// accounting. An unprivileged process gets at most `net.core.rmem_max` (doubled).
    static let receiveBuffer: Int32 = 8 << 20

    /// The fixed channel ATT runs on over LE.
    static let attChannel: UInt16 = 4

    private init(peer: BLEPeer, fd: Int32, security: BLESecurity) {
        self.peer = peer
        self.fd = fd
        self.security = security
    }

    /// Connects to `peer` from `adapter` (`hci0`; the kernel picks one when nil) at `security`,
    /// waiting at most `timeout` for the link. On a machine without Bluetooth this throws
    /// `.bluetoothUnavailable` with one line saying so.
    package static func connect(
        to peer: BLEPeer, adapter: String? = nil, security: BLESecurity = .low, timeout: Duration = .seconds(20)
    ) throws(BLEError) -> L2CAPATTBearer {
        let fd = try BluetoothSocket.open(type: Int32(SOCK_SEQPACKET.rawValue), protocol: BTPROTO_L2CAP)
        let bearer = L2CAPATTBearer(peer: peer, fd: fd, security: security)
        do {
            try bearer.open(adapter: adapter, timeout: timeout)
        } catch {
            bearer.close()
            throw error
        }
        return bearer
    }

    private func open(adapter: String?, timeout: Duration) throws(BLEError) {
        var local = sockaddr_l2()
        local.l2_family = sa_family_t(AF_BLUETOOTH)
        local.l2_cid = Self.attChannel.littleEndian
        local.l2_bdaddr_type = 0
        if let adapter {
            let id = try BluetoothSocket.adapterID(adapter)
            guard hci_devba(id, &local.l2_bdaddr) == 0 else {
                throw .socketFailed(call: "hci_devba(\(adapter))", reason: BluetoothSocket.message(errno))
            }
        }
        guard
            withUnsafePointer(
                to: &local, { bind(fd, UnsafeRawPointer($0).assumingMemoryBound(to: sockaddr.self), socklen_t(MemoryLayout<sockaddr_l2>.size)) }) == 0
        else {
            throw .socketFailed(call: "bind to the ATT channel", reason: BluetoothSocket.message(errno))
        }
        try apply(security)

        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        var remote = sockaddr_l2()
        remote.l2_family = sa_family_t(AF_BLUETOOTH)
        remote.l2_cid = Self.attChannel.littleEndian
        remote.l2_bdaddr = BluetoothSocket.bdaddr(peer.address)
        remote.l2_bdaddr_type = UInt8(peer.addressType.isRandom ? BDADDR_LE_RANDOM : BDADDR_LE_PUBLIC)
        let result = withUnsafePointer(to: &remote) {
            Glibc.connect(fd, UnsafeRawPointer($0).assumingMemoryBound(to: sockaddr.self), socklen_t(MemoryLayout<sockaddr_l2>.size))
        }
        if result != 0 {
            guard errno == EINPROGRESS else { throw connectFailure(errno) }
            guard try BluetoothSocket.wait(fd, for: Int16(POLLOUT), timeout: timeout) != 0 else {
                throw .connectFailed(
                    peer: peer.description,
                    reason: "no link within \(timeout.components.seconds) s — is the device on, advertising and in range?")
            }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
            guard code == 0 else { throw connectFailure(code) }
        }
        var info = l2cap_conninfo()
        var length = socklen_t(MemoryLayout<l2cap_conninfo>.size)
        if getsockopt(fd, SOL_L2CAP, L2CAP_CONNINFO, &info, &length) == 0 { connectionHandle = info.hci_handle }
        enlargeReceiveBuffer()
        let peer = self.peer
        reader = SeqPacketReader(fd: fd) { reason in Self.lost(peer, reason) }
    }

    /// Asks for ``receiveBuffer``: past `net.core.rmem_max` where the process may
    /// (SO_RCVBUFFORCE needs CAP_NET_ADMIN), else up to it (socket(7)).
    private func enlargeReceiveBuffer() {
        var size = Self.receiveBuffer
        let length = socklen_t(MemoryLayout<Int32>.size)
        if setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, length) != 0 {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, length)
        }
    }

    package func send(_ pdu: [UInt8]) throws(BLEError) {
        guard fd >= 0 else { throw .disconnected("closed by glucobridge") }
        while true {
            _ = try BluetoothSocket.wait(fd, for: Int16(POLLOUT), timeout: .seconds(5))
            let written = pdu.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written == pdu.count { return }
            let code = errno
            if written < 0, code == EAGAIN || code == EINTR { continue }
            if written < 0, BluetoothSocket.isDisconnection(code) { throw lost(BluetoothSocket.message(code)) }
            throw .socketFailed(call: "write", reason: written < 0 ? BluetoothSocket.message(code) : "\(written) of \(pdu.count) bytes written")
        }
    }

    /// The next PDU the reading thread took from the socket; once the link has ended, every PDU
    /// read before the end comes first, then the end's error.
    package func receive(timeout: Duration) throws(BLEError) -> ATTBearerPDU? {
        guard fd >= 0, let reader else { throw .disconnected("closed by glucobridge") }
        return try reader.take(timeout: timeout)
    }

    /// The link to the peer is gone, for `reason` (the socket's error): the message names the peer.
    private func lost(_ reason: String) -> BLEError { Self.lost(peer, reason) }

    private static func lost(_ peer: BLEPeer, _ reason: String) -> BLEError {
        .disconnected("\(peer.name.map { "\($0), " } ?? "")\(peer.address): \(reason)")
    }

    /// BlueZ's rule [src/shared/att.c `change_security`]: Insufficient Encryption below MEDIUM
    /// raises to MEDIUM; Insufficient Authentication steps LOW/MEDIUM → HIGH → FIPS.
    package func raiseSecurity(after error: ATTErrorCode) throws(BLEError) -> Bool {
        let next: BLESecurity
        switch error {
        case .insufficientEncryption where security < .medium:
            next = .medium
        case .insufficientAuthentication:
            switch security {
            case .low: next = .medium
            case .medium: next = .high
            case .high: next = .fips
            case .fips: return false
            }
        default:
            return false
        }
        try apply(next)
        return true
    }

    package func close() {
        guard fd >= 0 else { return }
        // The reading thread is done before the descriptor is closed.
        reader?.stop()
        reader = nil
        _ = Glibc.close(fd)
        fd = -1
    }

    deinit {
        close()
    }

    private func apply(_ level: BLESecurity) throws(BLEError) {
        var value = bt_security(level: level.rawValue, key_size: 0)
        guard setsockopt(fd, SOL_BLUETOOTH, BT_SECURITY, &value, socklen_t(MemoryLayout<bt_security>.size)) == 0 else {
            throw .socketFailed(call: "setsockopt(BT_SECURITY)", reason: BluetoothSocket.message(errno))
        }
        security = level
    }

    private func connectFailure(_ code: Int32) -> BLEError {
        let hint: String
        switch code {
        case ETIMEDOUT, EHOSTDOWN: hint = " — is the device on, advertising and in range?"
        case ECONNREFUSED: hint = " — the device refused the link (is it connected to another phone?)"
        case EACCES, EPERM: hint = " — pairing or permission required (bluetoothctl pair \(peer.address))"
        default: hint = ""
        }
        return .connectFailed(peer: peer.description, reason: BluetoothSocket.message(code) + hint)
    }
}
