import CBluetooth
import Foundation
import Transport

#if canImport(Glibc)
    import Glibc
#endif

/// Small POSIX helpers shared by the HCI scanner and the L2CAP bearer.
enum BluetoothSocket {
    /// Opens a Bluetooth socket, or explains in one line why this machine cannot: no kernel
    /// support (EAFNOSUPPORT), no permission, or another reason — the same words as
    /// `BluetoothProbe`.
    static func open(type: Int32, protocol proto: Int32) throws(BLEError) -> Int32 {
        let fd = socket(AF_BLUETOOTH, type | Int32(SOCK_CLOEXEC.rawValue), proto)
        guard fd >= 0 else {
            let code = errno
            if case .unavailable(let why) = BluetoothProbe.status(forSocketErrno: code), code == EAFNOSUPPORT || proto == BTPROTO_HCI {
                throw .bluetoothUnavailable(why)
            }
            throw .socketFailed(call: "socket", reason: message(code))
        }
        return fd
    }

    /// The adapter id for `name` (`hci0`), or the first adapter when nil.
    static func adapterID(_ name: String?) throws(BLEError) -> Int32 {
        let id = name.map { hci_devid($0) } ?? hci_get_route(nil)
        guard id >= 0 else {
            let code = errno
            if code == EAFNOSUPPORT, case .unavailable(let why) = BluetoothProbe.status(forSocketErrno: code) {
                throw .bluetoothUnavailable(why)
            }
            if let name { throw .bluetoothUnavailable("no Bluetooth adapter named \(name) (\(message(code)))") }
            throw .bluetoothUnavailable("no Bluetooth adapter found")
        }
        return id
    }

    /// Waits up to `timeout` for `events` on `fd`; the events that occurred (0 on timeout).
    static func wait(_ fd: Int32, for events: Int16, timeout: Duration) throws(BLEError) -> Int16 {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        while true {
            let result = poll(&entry, 1, milliseconds(timeout))
            if result >= 0 { return result == 0 ? 0 : entry.revents }
            if errno != EINTR { throw .socketFailed(call: "poll", reason: message(errno)) }
        }
    }

    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    static func message(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// Whether `code` means the link is gone.
    static func isDisconnection(_ code: Int32) -> Bool {
        [ECONNRESET, ENOTCONN, EPIPE, ECONNABORTED, EHOSTDOWN, EHOSTUNREACH, ETIMEDOUT].contains(code)
    }

    /// A `bdaddr_t` holding `address` (least significant byte first).
    static func bdaddr(_ address: BluetoothAddress) -> bdaddr_t {
        var value = bdaddr_t()
        withUnsafeMutableBytes(of: &value.b) { raw in
            for (index, byte) in address.littleEndianBytes.enumerated() { raw[index] = byte }
        }
        return value
    }
}
