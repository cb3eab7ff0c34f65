import Transport

/// The container format a capture was read from.
package enum USBCaptureFormat: Sendable, Equatable, CustomStringConvertible {
    /// Classic pcap with the given link type (220 usbmon mmapped, 189 usbmon, 249 USBPcap).
    case pcap(linkType: UInt32)
    /// pcapng; the link type of the interface(s) that carried USB packets.
    case pcapng(linkType: UInt32)
    /// One line per transfer: `out,<hex>` / `in,<hex>`.
    case transcript

    package var description: String {
        switch self {
        case .pcap(let lt): "pcap (link type \(lt))"
        case .pcapng(let lt): "pcapng (link type \(lt))"
        case .transcript: "transcript"
        }
    }

    /// Whether the format carries the capturing host's timestamps.
    package var hasTimestamps: Bool { self != .transcript }
}

/// A USB capture, read: its completed transfers in capture order.
public struct USBCapture: Sendable, Equatable {
    package var format: USBCaptureFormat
    public var transfers: [USBTransfer]

    package init(format: USBCaptureFormat, transfers: [USBTransfer]) {
        self.format = format
        self.transfers = transfers
    }
}
