import Foundation

/// The four USB transfer types, numbered as usbmon and USBPcap number them.
public enum USBTransferType: UInt8, Sendable, Codable, CaseIterable {
    case isochronous = 0
    case interrupt = 1
    case control = 2
    case bulk = 3
}

/// Which way a transfer's data moved.
public enum USBDirection: String, Sendable, Codable {
    /// Host to device.
    case out
    /// Device to host.
    case `in`
}

/// One completed USB transfer as a capture recorded it: a submission paired with its completion,
/// with the data from whichever of the two carried it.
public struct USBTransfer: Sendable, Equatable {
    /// The 1-based number of the capture record (pcap packet, pcapng block, transcript line) that
    /// carried this transfer's data, for error messages.
    public var packetNumber: Int
    /// The bus number (0 when the capture does not say).
    package var bus: UInt16
    /// The device address on the bus (0 when the capture does not say).
    package var device: UInt8
    /// The endpoint address with the direction bit (0x80 = IN), or nil when the capture does not
    /// say (transcripts).
    public var endpoint: UInt8?
    public var type: USBTransferType
    public var direction: USBDirection
    /// The 8-byte setup packet of a control transfer.
    package var setup: [UInt8]?
    /// The data that moved (OUT: what the host sent; IN: what the device returned).
    public var data: [UInt8]
    /// The completion status as a negative errno (0 = success; -108 = device gone; -32 = stall).
    package var status: Int32
    /// The capturing host's clock at completion, when the capture has timestamps.
    package var timestamp: Date?
    /// True when the capture holds less data than the transfer moved (the snapshot length cut the
    /// record, or usbmon captured fewer bytes than the transfer's length): `data` is then only the
    /// captured prefix, never padded.
    package var isTruncated: Bool = false

    package init(
        packetNumber: Int, bus: UInt16 = 0, device: UInt8 = 0, endpoint: UInt8?, type: USBTransferType,
        direction: USBDirection, setup: [UInt8]? = nil, data: [UInt8], status: Int32 = 0, timestamp: Date? = nil,
        isTruncated: Bool = false
    ) {
        self.packetNumber = packetNumber
        self.bus = bus
        self.device = device
        self.endpoint = endpoint
        self.type = type
        self.direction = direction
        self.setup = setup
        self.data = data
        self.status = status
        self.timestamp = timestamp
        self.isTruncated = isTruncated
    }
}

/// One device's recorded traffic, with what the recording tells of its identity: how a recorded
/// device reaches a driver for a passive decode, whatever recorded it (a capture file of any
/// format, or a recording transport).
public struct RecordedUSBDevice: Sendable {
    /// The device as the capture describes it. Without descriptors in the capture the ids are
    /// 0000:0000 and the interfaces are inferred from the endpoints the traffic used.
    package var description: USBDeviceDescription
    /// Whether a device descriptor was found in the capture.
    package var hasDescriptors: Bool
    /// The device's transfers in recorded order.
    package var transfers: [USBTransfer]

    /// The device the transfers of one device (one bus and address) describe: its ids and
    /// interfaces from the descriptors among them, else inferred from the endpoints they used.
    package init(transfers: [USBTransfer]) {
        self.transfers = transfers
        let first = transfers.first
        var device = USBDeviceDescription(vendorID: 0, productID: 0, bus: first?.bus ?? 0, address: first?.device ?? 0)
        var found = false
        for transfer in transfers where transfer.type == .control && transfer.direction == .in && transfer.status == 0 {
            guard let setup = transfer.setup.flatMap(USBControlSetup.init(bytes:)),
                setup.requestType == 0x80, setup.request == 0x06
            else { continue }
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
    /// Whether the transfer is part of a device's conversation (see `RecordedUSBDevice.conversation`).
    package var isConversation: Bool {
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
    package var request: USBTransfer
    package var replies: [USBTransfer]

    package init(request: USBTransfer, replies: [USBTransfer]) {
        self.request = request
        self.replies = replies
    }
}

/// Maps a recorded failure status (a negative errno) to the error a live transfer would raise.
private func transportError(forRecordedStatus status: Int32, transfer: USBTransfer) -> TransportError {
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
    package static func recorded(status: Int32, in transfer: USBTransfer) -> TransportError {
        transportError(forRecordedStatus: status, transfer: transfer)
    }
}

/// A transport that plays a recorded device back (a capture replayed): what it plays and where
/// it is. A driver that needs the recording (a nonce the recorded host chose, the packet number
/// for an error) asks for this protocol, never for a replay type.
package protocol RecordedUSBTransport: USBTransport {
    /// The device the transport plays back.
    var recorded: RecordedUSBDevice { get }
    /// The capture packet number of the last transfer read, for error messages.
    var lastReadPacketNumber: Int? { get }
}
