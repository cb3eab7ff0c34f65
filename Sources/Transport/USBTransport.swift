import Foundation

/// An endpoint as its descriptor describes it.
public struct USBEndpoint: Sendable, Equatable, Hashable {
    /// The endpoint address, direction bit included (0x80 = IN).
    package var address: UInt8
    package var type: USBTransferType
    package var maxPacketSize: Int

    package init(address: UInt8, type: USBTransferType, maxPacketSize: Int) {
        self.address = address
        self.type = type
        self.maxPacketSize = maxPacketSize
    }

    package var direction: USBDirection { address & 0x80 != 0 ? .in : .out }
}

/// One interface (alternate setting 0) of the active configuration.
package struct USBInterface: Sendable, Equatable {
    package var number: UInt8
    package var interfaceClass: UInt8
    package var interfaceSubclass: UInt8
    package var interfaceProtocol: UInt8
    package var endpoints: [USBEndpoint]

    package init(number: UInt8, interfaceClass: UInt8, interfaceSubclass: UInt8, interfaceProtocol: UInt8, endpoints: [USBEndpoint]) {
        self.number = number
        self.interfaceClass = interfaceClass
        self.interfaceSubclass = interfaceSubclass
        self.interfaceProtocol = interfaceProtocol
        self.endpoints = endpoints
    }

    /// USB interface class codes the drivers look for.
    package static let classCDCData: UInt8 = 0x0A
    package static let classHID: UInt8 = 0x03
}

/// What is known of a device: identity from its device descriptor, interfaces from its
/// configuration descriptor, and where it sits on the bus.
public struct USBDeviceDescription: Sendable, Equatable {
    package var vendorID: UInt16
    package var productID: UInt16
    package var bus: UInt16
    package var address: UInt8
    package var manufacturer: String?
    package var product: String?
    package var serialNumber: String?
    package var interfaces: [USBInterface]

    package init(
        vendorID: UInt16, productID: UInt16, bus: UInt16 = 0, address: UInt8 = 0,
        manufacturer: String? = nil, product: String? = nil, serialNumber: String? = nil,
        interfaces: [USBInterface] = []
    ) {
        self.vendorID = vendorID
        self.productID = productID
        self.bus = bus
        self.address = address
        self.manufacturer = manufacturer
        self.product = product
        self.serialNumber = serialNumber
        self.interfaces = interfaces
    }

    /// `22a3:0047`.
    package var idString: String { String(format: "%04x:%04x", vendorID, productID) }
}

/// Bytes a device returned, and the host's clock when they arrived (nil when unknown, as in a
/// transcript replay).
public struct USBRead: Sendable, Equatable {
    package var bytes: [UInt8]
    package var hostTime: Date?

    package init(bytes: [UInt8], hostTime: Date?) {
        self.bytes = bytes
        self.hostTime = hostTime
    }
}

/// The 8-byte setup packet of a control transfer.
public struct USBControlSetup: Sendable, Equatable {
    package var requestType: UInt8
    package var request: UInt8
    package var value: UInt16
    package var index: UInt16
    package var length: UInt16

    package init(requestType: UInt8, request: UInt8, value: UInt16, index: UInt16, length: UInt16) {
        self.requestType = requestType
        self.request = request
        self.value = value
        self.index = index
        self.length = length
    }

    package init?(bytes: [UInt8]) {
        guard bytes.count == 8 else { return nil }
        requestType = bytes[0]
        request = bytes[1]
        value = UInt16(bytes[2]) | UInt16(bytes[3]) << 8
        index = UInt16(bytes[4]) | UInt16(bytes[5]) << 8
        length = UInt16(bytes[6]) | UInt16(bytes[7]) << 8
    }

    package var bytes: [UInt8] {
        [
            requestType, request, UInt8(value & 0xFF), UInt8(value >> 8), UInt8(index & 0xFF), UInt8(index >> 8),
            UInt8(length & 0xFF), UInt8(length >> 8),
        ]
    }

    package var direction: USBDirection { requestType & 0x80 != 0 ? .in : .out }
}

/// An opened USB device, as a driver sees it. Implemented over libusb for hardware, over a capture
/// for replay, and as a recording wrapper around either. Calls are synchronous and made from one
/// thread at a time.
public protocol USBTransport: AnyObject {
    /// The device's descriptors.
    var device: USBDeviceDescription { get }
    /// Takes the interface for this process, detaching any kernel driver bound to it (and
    /// re-attaching it on `close`).
    func claimInterface(_ number: UInt8) throws(TransportError)
    /// Sends `bytes` to a bulk or interrupt OUT endpoint.
    func write(_ bytes: [UInt8], to endpoint: USBEndpoint, timeout: Duration) throws(TransportError)
    /// Receives at most `maxLength` bytes from a bulk or interrupt IN endpoint.
    func read(from endpoint: USBEndpoint, maxLength: Int, timeout: Duration) throws(TransportError) -> USBRead
    /// Performs a control transfer on endpoint 0: `data` is sent for an OUT request; for an IN
    /// request up to `setup.length` bytes come back.
    func control(_ setup: USBControlSetup, data: [UInt8], timeout: Duration) throws(TransportError) -> USBRead
    /// Releases claimed interfaces, re-attaches kernel drivers and closes the device. Idempotent.
    func close()
}

/// What went wrong on the wire. Messages name the device, endpoint or capture packet involved.
public enum TransportError: Error, Equatable, CustomStringConvertible {
    /// No USB stack or bus on this machine, or libusb could not start.
    case usbUnavailable(String)
    /// No supported device is connected.
    case noDevice
    /// The device could not be opened (permissions, busy).
    case openFailed(device: String, reason: String)
    case claimFailed(interface: UInt8, reason: String)
    case timeout(endpoint: UInt8)
    /// The device went away during a transfer (unplugged).
    case disconnected(String)
    /// Any other transfer failure.
    case transferFailed(endpoint: UInt8, reason: String)
    /// Replay: the driver sent a request the capture holds no answer for.
    case requestNotInCapture(request: [UInt8], afterPacket: Int)
    /// Replay: the driver asked for more than the capture holds (each recorded answer is served
    /// once, moving forward).
    case captureExhausted(afterPacket: Int)
    /// The import ran past the time it was given, and was stopped at its next transfer.
    case deadlinePassed(Duration)
    /// The capture recorded a failed transfer (stall, device gone) at this packet.
    case recordedFailure(packet: Int, status: Int32)
    /// Recording to a capture file failed.
    case recordingFailed(String)

    /// Why an import given `budget` was stopped. A zero budget stops every import before it reads.
    package static func deadlineText(_ budget: Duration) -> String {
        budget <= .zero
            ? "the import was not run: its time limit is 0 s (--import-limit 0 abandons every import); nothing of it was stored"
            : "the import was stopped after running for \(seconds(budget)), its time limit; nothing of it was stored"
    }

    public var description: String {
        switch self {
        case .usbUnavailable(let why): "USB is not available on this machine: \(why)"
        case .noDevice: "no supported device found"
        case .openFailed(let device, let reason): "cannot open USB device \(device): \(reason)"
        case .claimFailed(let interface, let reason): "cannot claim USB interface \(interface): \(reason)"
        case .timeout(let ep): String(format: "USB transfer on endpoint 0x%02x timed out", ep)
        case .disconnected(let what): "the device was disconnected during a transfer (\(what))"
        case .transferFailed(let ep, let reason): String(format: "USB transfer on endpoint 0x%02x failed: ", ep) + reason
        case .requestNotInCapture(let request, let packet):
            "the capture holds no answer to the request \(Hex.encode(Array(request.prefix(16))))\(request.count > 16 ? " …" : "") (searched after packet \(packet))"
        case .captureExhausted(let packet):
            "the capture holds no further answer after packet \(packet) while the driver still expects data: the capture is cut short"
        case .deadlinePassed(let budget): Self.deadlineText(budget)
        case .recordedFailure(let packet, let status):
            "the capture records a failed transfer at packet \(packet) (status \(status)\(status == -108 ? ": device gone" : status == -32 ? ": stall" : ""))"
        case .recordingFailed(let why): "cannot record the session: \(why)"
        }
    }
}

extension TransportError {
    /// `600 s`, `0.25 s`.
    package static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        guard attoseconds != 0 else { return "\(seconds) s" }
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return "\((value * 1000).rounded() / 1000) s"
    }
}
