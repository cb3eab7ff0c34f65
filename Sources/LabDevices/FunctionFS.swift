import Foundation
import Synchronization
import Transport

#if canImport(Glibc)
    import Glibc
#endif

/// A FunctionFS function (Documentation/usb/functionfs.rst; include/uapi/linux/usb/functionfs.h):
/// the interfaces and endpoints of a device, served from user space. Its descriptors and strings
/// are written to `ep0` before the gadget is bound; `ep0` then reports bind, enable and setup
/// events, and `ep1`, `ep2`, … carry each endpoint's data in the order the descriptors list them.
final class FunctionFS: Sendable {
    /// `FUNCTIONFS_DESCRIPTORS_MAGIC_V2`, `FUNCTIONFS_STRINGS_MAGIC`.
    static let descriptorsMagicV2: UInt32 = 3
    static let stringsMagic: UInt32 = 2
    /// `FUNCTIONFS_HAS_FS_DESC | FUNCTIONFS_HAS_HS_DESC`.
    static let fullAndHighSpeed: UInt32 = 1 | 2

    let mountPoint: String
    let endpoints: [USBEndpoint]
    private let ep0: Int32
    /// Line coding a CDC host sets and reads back (7 bytes, USB CDC PSTN 6.3.11).
    private let lineCoding = Mutex<[UInt8]>([0x80, 0x25, 0, 0, 0, 0, 8])

    /// Mounts instance `name` of the gadget's `ffs.NAME` function at `mountPoint` and writes
    /// descriptors for `interfaces` (their endpoints in order become ep1, ep2, …).
    init(name: String, mountPoint: String, interfaces: [USBInterface]) throws {
        self.mountPoint = mountPoint
        try Gadget.makeFolder(mountPoint)
        guard mount(name, mountPoint, "functionfs", 0, nil) == 0 || errno == EBUSY else {
            throw LabDeviceError.posix("mount functionfs", mountPoint)
        }
        ep0 = Glibc.open("\(mountPoint)/ep0", O_RDWR)
        guard ep0 >= 0 else { throw LabDeviceError.posix("open", "\(mountPoint)/ep0") }
        endpoints = interfaces.flatMap(\.endpoints)
        try Gadget.write(Self.descriptors(interfaces), toDescriptor: ep0, path: "\(mountPoint)/ep0")
        try Gadget.write(Self.strings(), toDescriptor: ep0, path: "\(mountPoint)/ep0")
    }

    /// The file of `endpoint`, opened for its direction.
    func open(_ endpoint: USBEndpoint) throws -> Int32 {
        guard let index = endpoints.firstIndex(of: endpoint) else {
            throw LabDeviceError("the function has no endpoint \(String(format: "0x%02x", endpoint.address))")
        }
        let path = "\(mountPoint)/ep\(index + 1)"
        let fd = Glibc.open(path, O_RDWR)
        guard fd >= 0 else { throw LabDeviceError.posix("open", path) }
        return fd
    }

    /// The v2 descriptor blob: the same interfaces at full speed and at high speed.
    static func descriptors(_ interfaces: [USBInterface]) -> [UInt8] {
        func set(highSpeed: Bool) -> (bytes: [UInt8], count: Int) {
            var bytes: [UInt8] = []
            var count = 0
            for interface in interfaces {
                bytes += [
                    9, USBDescriptors.interfaceType, interface.number, 0, UInt8(interface.endpoints.count),
                    interface.interfaceClass, interface.interfaceSubclass, interface.interfaceProtocol, 0,
                ]
                count += 1
                for endpoint in interface.endpoints {
                    let size = packetSize(endpoint, highSpeed: highSpeed)
                    let interval: UInt8 = endpoint.type == .interrupt ? (highSpeed ? 4 : 1) : 0
                    bytes += [
                        7, USBDescriptors.endpointType, endpoint.address, USBDescriptors.bmAttributes(for: endpoint.type),
                        UInt8(size & 0xFF), UInt8(size >> 8), interval,
                    ]
                    count += 1
                }
            }
            return (bytes, count)
        }
        let full = set(highSpeed: false)
        let high = set(highSpeed: true)
        let length = 20 + full.bytes.count + high.bytes.count
        return le32(descriptorsMagicV2) + le32(UInt32(length)) + le32(fullAndHighSpeed) + le32(UInt32(full.count))
            + le32(UInt32(high.count)) + full.bytes + high.bytes
    }

    /// A bulk endpoint's packets are 64 bytes at full speed and 512 at high speed; interrupt
    /// endpoints keep the size the device gives them.
    static func packetSize(_ endpoint: USBEndpoint, highSpeed: Bool) -> Int {
        guard endpoint.type == .bulk else { return min(max(endpoint.maxPacketSize, 8), 64) }
        return highSpeed ? 512 : 64
    }

    /// No strings: the interfaces' iInterface are 0.
    static func strings() -> [UInt8] {
        le32(stringsMagic) + le32(16) + le32(0) + le32(0)
    }

    static func le32(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }

    /// The ep0 event types (`enum usb_functionfs_event_type`).
    enum Event: UInt8 {
        case bind = 0
        case unbind, enable, disable, setup, suspend, resume
    }

    /// Serves ep0 on a thread of its own until the process ends: answers the CDC class requests a
    /// host sends to a serial device (SET/GET_LINE_CODING, SET_CONTROL_LINE_STATE) and stalls every
    /// other request, as a device that does not know it does. `onEvent` sees each event.
    func serveControl(onEvent: @escaping @Sendable (Event) -> Void) {
        let ep0 = self.ep0
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 12 * 4)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(ep0, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return
                }
                var offset = 0
                while offset + 12 <= count {
                    let raw = Array(buffer[offset..<offset + 12])
                    offset += 12
                    guard let event = Event(rawValue: raw[8]) else { continue }
                    onEvent(event)
                    if event == .setup, let setup = USBControlSetup(bytes: Array(raw[0..<8])) { answer(setup) }
                }
            }
        }
        thread.start()
    }

    private func answer(_ setup: USBControlSetup) {
        let classInterface = setup.requestType & 0x7F == 0x21
        switch (classInterface, setup.request) {
        case (true, 0x20):  // SET_LINE_CODING: take the 7 bytes.
            var data = [UInt8](repeating: 0, count: Int(setup.length))
            let count = data.withUnsafeMutableBytes { read(ep0, $0.baseAddress, $0.count) }
            if count == 7 { lineCoding.withLock { $0 = data } }
        case (true, 0x21):  // GET_LINE_CODING
            let data = Array(lineCoding.withLock { $0 }.prefix(Int(setup.length)))
            _ = data.withUnsafeBytes { write(ep0, $0.baseAddress, $0.count) }
        case (true, 0x22):  // SET_CONTROL_LINE_STATE: no data stage; a zero-length read acknowledges.
            _ = read(ep0, nil, 0)
        case (true, 0xFE):  // Bulk-Only Transport's Get Max LUN: one logical unit, number 0.
            _ = [UInt8(0)].withUnsafeBytes { write(ep0, $0.baseAddress, min(1, Int(setup.length))) }
        case (true, 0xFF):  // Bulk-Only Mass Storage Reset: nothing is pending between commands.
            _ = read(ep0, nil, 0)
        default:
            // Stall: an access against the request's direction halts the control endpoint.
            if setup.direction == .in { _ = read(ep0, nil, 0) } else { _ = write(ep0, nil, 0) }
        }
    }
}

extension Gadget {
    static func write(_ bytes: [UInt8], toDescriptor fd: Int32, path: String) throws {
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw LabDeviceError.posix("write", path) }
    }
}
