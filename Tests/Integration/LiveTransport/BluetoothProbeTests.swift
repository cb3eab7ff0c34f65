import CBluetooth
import Foundation
import ImportTestSupport
import XCTest

@testable import TransportBlueZ

#if canImport(Glibc)
    import Glibc
#endif

final class BluetoothProbeTests: XCTestCase {
    /// The probe agrees with what a raw HCI socket and sysfs say about this machine.
    func testCheckAgreesWithThisMachine() throws {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        let socketErrno = errno
        if fd >= 0 { close(fd) }
        let status = BluetoothProbe.check()

        if fd < 0 {
            guard case .unavailable(let message) = status else { return XCTFail("\(status)") }
            switch socketErrno {
            case EAFNOSUPPORT:
                XCTAssertTrue(message.contains("no Bluetooth support"), message)
                XCTAssertEqual(message, "this kernel has no Bluetooth support (socket: Address family not supported by protocol)")
            case EPERM, EACCES:
                XCTAssertTrue(message.contains("CAP_NET_RAW"), message)
            default:
                XCTAssertTrue(message.hasPrefix("cannot open a Bluetooth HCI socket"), message)
            }
            return
        }

        let sysfs = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/bluetooth")) ?? []
        let adapterNames = Set(sysfs.filter { $0.range(of: #"^hci[0-9]+$"#, options: .regularExpression) != nil })
        switch status {
        case .available(let adapters):
            XCTAssertEqual(Set(adapters.map { String($0.prefix(while: { $0 != " " })) }), adapterNames)
        case .unavailable(let message):
            XCTAssertEqual(adapterNames, [], "adapters exist but the probe said: \(message)")
            XCTAssertEqual(message, "no Bluetooth adapter found")
        }
    }

    func testSocketErrorsAreExplained() {
        XCTAssertEqual(
            BluetoothProbe.status(forSocketErrno: EAFNOSUPPORT),
            .unavailable("this kernel has no Bluetooth support (socket: Address family not supported by protocol)"))
        for code in [EPERM, EACCES] {
            guard case .unavailable(let message) = BluetoothProbe.status(forSocketErrno: code) else { return XCTFail() }
            XCTAssertTrue(message.hasPrefix("no permission to open a Bluetooth HCI socket (socket: "), message)
            XCTAssertTrue(message.contains("CAP_NET_RAW"), message)
        }
        XCTAssertEqual(
            BluetoothProbe.status(forSocketErrno: ENOMEM),
            .unavailable("cannot open a Bluetooth HCI socket (socket: Cannot allocate memory)"))
    }

    func testAdapterStatus() {
        XCTAssertEqual(BluetoothProbe.status(adapters: []), .unavailable("no Bluetooth adapter found"))
        let adapter = BluetoothProbe.adapterDescription(name: "hci0", address: "00:1A:7D:DA:71:13", isUp: true)
        XCTAssertEqual(adapter, "hci0 00:1A:7D:DA:71:13 (up)")
        XCTAssertEqual(BluetoothProbe.status(adapters: [adapter]), .available(adapters: [adapter]))
        XCTAssertEqual(BluetoothProbe.adapterDescription(name: "hci1", address: nil, isUp: false), "hci1 (down)")
    }

    /// The request numbers `<bluetooth/hci.h>` defines with `_IOR`, which Swift cannot import.
    func testIoctlRequestNumbers() {
        XCTAssertEqual(BluetoothProbe.hciGetDevList, 0x8004_48D2)
        XCTAssertEqual(BluetoothProbe.ioctlReadRequest(type: "H", number: 211, size: 4), 0x8004_48D3)  // HCIGETDEVINFO
        XCTAssertEqual(BluetoothProbe.devListEntriesOffset, 4)
        XCTAssertEqual(MemoryLayout<hci_dev_req>.stride, 8)
    }
}
