import CaptureUSB
import Foundation
import Transport

/// One device's traffic in a capture, with what the capture tells of its identity.
public struct CapturedDevice: Sendable {
    /// The device as the capture describes it. Without descriptors in the capture the ids are
    /// 0000:0000 and the interfaces are inferred from the endpoints the traffic used.
    public var description: USBDeviceDescription
    /// Whether a device descriptor was found in the capture.
    public var hasDescriptors: Bool
    /// The device's transfers in capture order.
    public var transfers: [USBTransfer]
    public var format: USBCaptureFormat

    /// Splits a capture by (bus, device address); devices that only answered control requests
    /// (hubs, other enumerated devices) are kept too, in the order they first appear.
    public static func devices(in capture: USBCapture) -> [CapturedDevice] {
        var order: [UInt32] = []
        var groups: [UInt32: [USBTransfer]] = [:]
        for transfer in capture.transfers {
            let key = UInt32(transfer.bus) << 8 | UInt32(transfer.device)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(transfer)
        }
        return order.map { CapturedDevice(transfers: groups[$0]!, format: capture.format) }
    }

    init(transfers: [USBTransfer], format: USBCaptureFormat) {
        self.transfers = transfers
        self.format = format
        let first = transfers.first
        var device = USBDeviceDescription(vendorID: 0, productID: 0, bus: first?.bus ?? 0, address: first?.device ?? 0)
        var found = false
        for transfer in transfers where transfer.type == .control && transfer.direction == .in && transfer.status == 0 {
            guard let setup = transfer.setup.flatMap(USBControlSetup.init(bytes:)),
                  setup.requestType == 0x80, setup.request == 0x06 else { continue }
            switch setup.value >> 8 {
            case UInt16(USBDescriptors.deviceType):
                if let ids = USBDescriptors.identity(fromDeviceDescriptor: transfer.data) {
                    (device.vendorID, device.productID) = ids
                    found = true
                }
            case UInt16(USBDescriptors.configurationType):
                let interfaces = USBDescriptors.interfaces(fromConfigurationDescriptor: transfer.data)
                if !interfaces.isEmpty { device.interfaces = interfaces }
            default:
                break
            }
        }
        if device.interfaces.isEmpty {
            device.interfaces = [Self.inferredInterface(from: transfers)]
        }
        description = device
        hasDescriptors = found
    }

    /// An interface holding the endpoints the traffic used; a transcript, which names none,
    /// gets one bulk endpoint each way.
    private static func inferredInterface(from transfers: [USBTransfer]) -> USBInterface {
        var endpoints: [USBEndpoint] = []
        for transfer in transfers where transfer.type == .bulk || transfer.type == .interrupt {
            let address = transfer.endpoint ?? (transfer.direction == .in ? 0x81 : 0x01)
            if !endpoints.contains(where: { $0.address == address }) {
                endpoints.append(USBEndpoint(address: address, type: transfer.type, maxPacketSize: 64))
            }
        }
        return USBInterface(number: 0, interfaceClass: 0xFF, interfaceSubclass: 0, interfaceProtocol: 0, endpoints: endpoints)
    }

    /// Whether the capture traffic carries transfers other than control (the conversation itself).
    public var hasDataTransfers: Bool {
        transfers.contains { $0.type == .bulk || $0.type == .interrupt }
    }

    /// The transfers that carry the device's conversation, in capture order: bulk and interrupt
    /// transfers, and HID SET_REPORT requests carrying a report (how a HID device without an OUT
    /// endpoint is sent its reports). Other control transfers (enumeration, descriptors, a serial
    /// port's line settings) are left out.
    public var conversation: [USBTransfer] {
        transfers.filter(\.isConversation)
    }

    /// The recorded conversation as request/answer exchanges: each host message (an OUT transfer
    /// on a bulk or interrupt endpoint, or a HID SET_REPORT) opens an exchange, and the IN
    /// transfers completed after it, up to the next host message, are its answers. IN transfers
    /// before the first host message have no request and are left out.
    public var exchanges: [USBExchange] {
        var result: [USBExchange] = []
        for transfer in conversation {
            if transfer.direction == .out {
                result.append(USBExchange(request: transfer, replies: []))
            } else if !result.isEmpty {
                result[result.count - 1].replies.append(transfer)
            }
        }
        return result
    }
}

extension USBTransfer {
    /// Whether the transfer is part of a device's conversation (see `CapturedDevice.conversation`).
    public var isConversation: Bool {
        switch type {
        case .bulk, .interrupt:
            return true
        case .control:
            guard direction == .out, !data.isEmpty, let setup, setup.count == 8 else { return false }
            return setup[0] == HIDChannel.classInterfaceOut && setup[1] == HIDChannel.setReportRequest
        case .isochronous:
            return false
        }
    }
}

/// A request the host sent and the answers the device gave, as recorded.
public struct USBExchange: Sendable {
    public var request: USBTransfer
    public var replies: [USBTransfer]

    public init(request: USBTransfer, replies: [USBTransfer]) {
        self.request = request
        self.replies = replies
    }
}

/// Maps a recorded failure status (a negative errno) to the error a live transfer would raise.
func transportError(forRecordedStatus status: Int32, transfer: USBTransfer) -> TransportError {
    let endpoint = transfer.endpoint ?? 0
    switch status {
    case -19, -108:
        return .disconnected("capture packet \(transfer.packetNumber)")
    case -110, -2:
        return .timeout(endpoint: endpoint)
    default:
        return .recordedFailure(packet: transfer.packetNumber, status: status)
    }
}

extension TransportError {
    /// The error a live transfer would have raised for a failure the capture recorded.
    public static func recorded(status: Int32, in transfer: USBTransfer) -> TransportError {
        transportError(forRecordedStatus: status, transfer: transfer)
    }
}
