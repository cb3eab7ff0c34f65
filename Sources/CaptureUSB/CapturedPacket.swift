import Foundation
import Transport

/// One packet as a container (pcap record, pcapng packet block) holds it: where its captured bytes
/// sit in the file's byte array, and what the container says about it.
struct CapturedPacket {
    /// 1-based packet number within the file.
    var number: Int
    /// Byte offset of the record (pcap record header or pcapng block) in the file.
    var offset: Int
    /// Byte offset of the first captured byte of the packet.
    var start: Int
    var capturedLength: Int
    var originalLength: Int
    var timestamp: Date?

    /// Whether the snapshot length cut the packet.
    var isCut: Bool { capturedLength < originalLength }
}

/// Turns USB packets of any supported link type into completed transfers in completion order.
struct TransferAssembler {
    let file: String
    private var usbmon = UsbmonAssembler()
    private var usbpcap = USBPcapAssembler()
    private(set) var transfers: [USBTransfer] = []

    init(file: String) {
        self.file = file
    }

    /// Whether the link type is one this module decodes.
    static func isUSB(_ linkType: UInt32) -> Bool {
        linkType == Usbmon.mmappedLinkType || linkType == Usbmon.linkType || linkType == USBPcap.linkType
    }

    /// Feeds one packet; packets of other link types are ignored.
    mutating func add(_ record: CapturedPacket, linkType: UInt32, bytes: [UInt8]) throws(CaptureError) {
        switch linkType {
        case Usbmon.mmappedLinkType:
            try usbmon.add(record, headerLength: Usbmon.fullHeaderLength, bytes: bytes, file: file, into: &transfers)
        case Usbmon.linkType:
            try usbmon.add(record, headerLength: Usbmon.shortHeaderLength, bytes: bytes, file: file, into: &transfers)
        case USBPcap.linkType:
            try usbpcap.add(record, bytes: bytes, file: file, into: &transfers)
        default:
            break
        }
    }
}
