import Foundation

/// A disk as a driver that speaks SCSI to it sees it: INQUIRY and single 512-byte blocks read
/// with READ(10) and written with WRITE(10). Implemented over the kernel's SG_IO for hardware,
/// over a USB transport's bulk endpoints (Bulk-Only Transport) for simulators and replays, and
/// as a recording wrapper. Calls are synchronous and made from one thread at a time.
public protocol SCSIDisk: AnyObject {
    /// The disk, as messages name it (`/dev/sg1 (2766:0000)`).
    var name: String { get }
    /// The USB device the disk is, when known.
    var usbDevice: USBDeviceDescription? { get }
    /// The standard INQUIRY data (36 bytes: vendor at bytes 8–15, product at 16–31).
    func inquiry() throws(TransportError) -> [UInt8]
    /// Reads one 512-byte block with READ(10).
    func readBlock(_ lba: UInt32) throws(TransportError) -> USBRead
    /// Writes one 512-byte block with WRITE(10).
    func writeBlock(_ lba: UInt32, _ bytes: [UInt8]) throws(TransportError)
    /// Closes the disk. Idempotent.
    func close()
}

/// The commands of SCSI Primary Commands and SCSI Block Commands the disks are sent, as their
/// command descriptor blocks (T10 SPC-4 §6.6 INQUIRY, SBC-3 §5.11 READ(10), §5.35 WRITE(10)).
package enum SCSICommand {
    package static let blockSize = 512
    package static let inquiryLength = 36
    package static let inquiryOpcode: UInt8 = 0x12
    package static let read10Opcode: UInt8 = 0x28
    package static let write10Opcode: UInt8 = 0x2A

    /// INQUIRY for the standard data, `inquiryLength` bytes.
    package static var inquiry: [UInt8] { [inquiryOpcode, 0, 0, 0, UInt8(inquiryLength), 0] }
    /// READ(10) of one block at `lba`.
    package static func read10(_ lba: UInt32) -> [UInt8] { ten(read10Opcode, lba) }
    /// WRITE(10) of one block at `lba`.
    package static func write10(_ lba: UInt32) -> [UInt8] { ten(write10Opcode, lba) }

    private static func ten(_ opcode: UInt8, _ lba: UInt32) -> [UInt8] {
        [opcode, 0, UInt8(lba >> 24), UInt8(lba >> 16 & 0xFF), UInt8(lba >> 8 & 0xFF), UInt8(lba & 0xFF), 0, 0, 1, 0]
    }

    /// The logical block address of a READ(10) or WRITE(10) descriptor block.
    package static func lba(of cdb: [UInt8]) -> UInt32? {
        guard cdb.count >= 10 else { return nil }
        return UInt32(cdb[2]) << 24 | UInt32(cdb[3]) << 16 | UInt32(cdb[4]) << 8 | UInt32(cdb[5])
    }

    /// The vendor identification of standard INQUIRY data (bytes 8–15), without its padding.
    package static func vendor(ofInquiry data: [UInt8]) -> String? {
        guard data.count >= 16 else { return nil }
        let field = data[8..<16].map { $0 == 0 ? UInt8(ascii: " ") : $0 }
        return String(decoding: field, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }
}
