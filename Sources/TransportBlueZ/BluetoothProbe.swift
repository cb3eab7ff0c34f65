import CBluetooth
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whether this machine can talk Bluetooth, as `BluetoothProbe.check()` found it.
package enum BluetoothStatus: Equatable, Sendable {
    /// The kernel has Bluetooth and these adapters are registered, each described as
    /// `hci0 00:1A:7D:DA:71:13 (up)`.
    case available(adapters: [String])
    /// Why Bluetooth cannot be used, phrased for the user.
    case unavailable(String)
}

/// Checks for a usable Bluetooth stack before a BLE device is tried, so the user gets one clear
/// sentence instead of a socket error.
///
/// On a real machine this opens a raw HCI socket (which needs the kernel's Bluetooth subsystem),
/// lists the registered adapters with the `HCIGETDEVLIST` ioctl, and reads each one's name,
/// address and up/down state through libbluetooth's `hci_devinfo`. It changes nothing: no adapter
/// is brought up, no scan is started. The socket is always closed before returning.
package enum BluetoothProbe {
    package static func check() -> BluetoothStatus {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard fd >= 0 else { return status(forSocketErrno: errno) }
        defer { _ = close(fd) }

        let maxDevices = Int(HCI_MAX_DEV)
        let entriesOffset = devListEntriesOffset
        let size = entriesOffset + maxDevices * MemoryLayout<hci_dev_req>.stride
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<hci_dev_req>.alignment)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        buffer.storeBytes(of: UInt16(maxDevices), as: UInt16.self)

        guard ioctl(fd, hciGetDevList, buffer) >= 0 else {
            return .unavailable("cannot list Bluetooth adapters (HCIGETDEVLIST: \(String(cString: strerror(errno))))")
        }
        let count = min(Int(buffer.load(as: UInt16.self)), maxDevices)
        let requests = buffer.advanced(by: entriesOffset).bindMemory(to: hci_dev_req.self, capacity: maxDevices)
        let adapters = (0..<count).map { adapter(id: requests[$0].dev_id, listedFlags: requests[$0].dev_opt) }
        return status(adapters: adapters)
    }

    /// The status when `socket(AF_BLUETOOTH, …)` failed with `code`.
    static func status(forSocketErrno code: Int32) -> BluetoothStatus {
        let reason = "socket: \(String(cString: strerror(code)))"
        switch code {
        case EAFNOSUPPORT:
            return .unavailable("this kernel has no Bluetooth support (\(reason))")
        case EPERM, EACCES:
            return .unavailable(
                "no permission to open a Bluetooth HCI socket (\(reason)): run with the CAP_NET_RAW capability "
                    + "(setcap cap_net_raw+ep on the glucobridge binary) or as root")
        default:
            return .unavailable("cannot open a Bluetooth HCI socket (\(reason))")
        }
    }

    /// The status for the adapters found (described as `adapterDescription` does).
    static func status(adapters: [String]) -> BluetoothStatus {
        adapters.isEmpty ? .unavailable("no Bluetooth adapter found") : .available(adapters: adapters)
    }

    /// `hci0 00:1A:7D:DA:71:13 (up)`.
    static func adapterDescription(name: String, address: String?, isUp: Bool) -> String {
        [name, address, isUp ? "(up)" : "(down)"].compactMap { $0 }.joined(separator: " ")
    }

    /// The ioctl request number Linux's `_IOR(type, number, size)` macro computes (not importable
    /// into Swift): direction "read" in bits 30–31, the argument size in bits 16–29, the type
    /// character in bits 8–15 and the number in bits 0–7.
    static func ioctlReadRequest(type: Character, number: UInt8, size: Int) -> UInt {
        (2 << 30) | (UInt(size) << 16) | (UInt(type.asciiValue ?? 0) << 8) | UInt(number)
    }

    /// `HCIGETDEVLIST`, `_IOR('H', 210, int)` in `<bluetooth/hci.h>`.
    static let hciGetDevList = ioctlReadRequest(type: "H", number: 210, size: MemoryLayout<Int32>.size)

    /// Where `dev_req[]` starts in `struct hci_dev_list_req { uint16_t dev_num; struct hci_dev_req dev_req[]; }`.
    static var devListEntriesOffset: Int {
        let alignment = MemoryLayout<hci_dev_req>.alignment
        return (MemoryLayout<UInt16>.size + alignment - 1) / alignment * alignment
    }

    /// One adapter's description, from `hci_devinfo` when it answers, else from the list entry.
    private static func adapter(id: UInt16, listedFlags: UInt32) -> String {
        let upBit = UInt32(1) << UInt32(HCI_UP)
        var info = hci_dev_info()
        guard hci_devinfo(Int32(id), &info) == 0 else {
            return adapterDescription(name: "hci\(id)", address: nil, isUp: listedFlags & upBit != 0)
        }
        let name = withUnsafeBytes(of: info.name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        var text = [CChar](repeating: 0, count: 18)
        let address =
            ba2str(&info.bdaddr, &text) >= 0
            ? String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
        return adapterDescription(name: name.isEmpty ? "hci\(id)" : name, address: address, isUp: info.flags & upBit != 0)
    }
}
