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
    public var bus: UInt16
    /// The device address on the bus (0 when the capture does not say).
    public var device: UInt8
    /// The endpoint address with the direction bit (0x80 = IN), or nil when the capture does not
    /// say (transcripts).
    public var endpoint: UInt8?
    public var type: USBTransferType
    public var direction: USBDirection
    /// The 8-byte setup packet of a control transfer.
    public var setup: [UInt8]?
    /// The data that moved (OUT: what the host sent; IN: what the device returned).
    public var data: [UInt8]
    /// The completion status as a negative errno (0 = success; -108 = device gone; -32 = stall).
    public var status: Int32
    /// The capturing host's clock at completion, when the capture has timestamps.
    public var timestamp: Date?
    /// True when the capture holds less data than the transfer moved (the snapshot length cut the
    /// record, or usbmon captured fewer bytes than the transfer's length): `data` is then only the
    /// captured prefix, never padded.
    public var isTruncated: Bool = false

    public init(
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

/// The container format a capture was read from.
public enum USBCaptureFormat: Sendable, Equatable, CustomStringConvertible {
    /// Classic pcap with the given link type (220 usbmon mmapped, 189 usbmon, 249 USBPcap).
    case pcap(linkType: UInt32)
    /// pcapng; the link type of the interface(s) that carried USB packets.
    case pcapng(linkType: UInt32)
    /// One line per transfer: `out,<hex>` / `in,<hex>`.
    case transcript

    public var description: String {
        switch self {
        case .pcap(let lt): "pcap (link type \(lt))"
        case .pcapng(let lt): "pcapng (link type \(lt))"
        case .transcript: "transcript"
        }
    }

    /// Whether the format carries the capturing host's timestamps.
    public var hasTimestamps: Bool { self != .transcript }
}

/// A USB capture, read: its completed transfers in capture order.
public struct USBCapture: Sendable, Equatable {
    public var format: USBCaptureFormat
    public var transfers: [USBTransfer]

    public init(format: USBCaptureFormat, transfers: [USBTransfer]) {
        self.format = format
        self.transfers = transfers
    }
}
