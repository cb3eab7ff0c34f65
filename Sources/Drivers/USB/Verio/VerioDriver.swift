import Foundation
import Model
import Pipeline
import Transport

/// LifeScan OneTouch Verio meters: a USB disk whose blocks 3 and 4 are registers. A command is a
/// LifeScan frame written to its block with WRITE(10); the reply is read back from the same block
/// with READ(10) (glucometer-protocols `src/lifescan/onetouch-verio-2015.md`). Writing to a disk
/// that is not the meter would damage it, so before its first write the driver checks both
/// identities the public readers use: the SCSI INQUIRY vendor `LifeScan` (glucometerutils
/// `otverio2015.py`) and the `LIFESCAN   FAT16` signature at byte 43 of block 0 (Tidepool uploader
/// `oneTouchVerio.js`). It sends only the read commands of ``VerioCommand``.
package enum VerioDriver: USBDeviceDriver {
    package static let family: DeviceFamily = "verio"
    package static let products = [
        USBProduct(vendorID: 0x2766, productID: 0x0000, name: "OneTouch Verio"),
        USBProduct(vendorID: 0x2766, productID: 0x0004, name: "OneTouch Verio Flex"),
        USBProduct(vendorID: 0x2766, productID: 0x000C, name: "OneTouch Verio Reflect"),
        USBProduct(vendorID: 0x2766, productID: 0x1000, name: "OneTouch Select Plus"),
        USBProduct(vendorID: 0x2766, productID: 0x1004, name: "OneTouch Select Plus Flex"),
        USBProduct(vendorID: 0x2766, productID: 0x000E, name: "OneTouch Ultra Plus Flex"),
    ]
    package static let capabilities: DeviceCapabilities = [.glucose, .storedHistory, .passiveDecode]
    package static let summary = """
        glucose results (strip) in mg/dL as SCSI register blocks, read-only: a disk whose INQUIRY or signature is not \
        LifeScan's is never written; never sets the clock or erases; control-solution results are counted, not stored
        """

    /// The vendor identification INQUIRY returns.
    package static let vendor = "LifeScan"
    /// The signature at `signatureOffset` of block 0: the FAT volume label and file-system type.
    package static let signature = Array("LIFESCAN   FAT16".utf8)
    package static let signatureOffset = 0x2B

    package static func download(over transport: any USBTransport, context: DownloadContext) throws(VerioError) -> GlucoseDownload {
        let disk: BulkOnlyDisk
        do {
            disk = try BulkOnlyDisk(transport: transport)
        } catch {
            throw VerioError.transport(error)
        }
        return try download(from: disk, context: context)
    }

    /// Reads the meter on `disk`, after checking that it is one.
    package static func download(from disk: any SCSIDisk, context: DownloadContext) throws(VerioError) -> GlucoseDownload {
        try identify(disk)
        var session = VerioSession()
        try ask(.query(.serial), disk, &session)
        try ask(.query(.model), disk, &session)
        try ask(.readUnit, disk, &session)
        try ask(.readClock, disk, &session)
        try ask(.recordCount, disk, &session)
        let count = session.count ?? 0
        let source = DeviceSource(family: family, serial: session.serial ?? "", model: session.model)
        let stored = context.cursor(source, stream: VerioSession.stream)
        for position in 0..<count {
            try ask(.record(UInt16(position)), disk, &session)
            if let stored, let record = session.records[position], Int64(record.lifetimeCounter) <= stored {
                session.stoppedAtStored = true
                break
            }
            context.progress.report("records", done: position + 1, total: count)
        }
        return try session.normalised()
    }

    /// Refuses a disk that is not a LifeScan meter, before anything is written to it.
    package static func identify(_ disk: any SCSIDisk) throws(VerioError) {
        let inquiry = try transport(waitingFor: "the answer to INQUIRY") { () throws(TransportError) in try disk.inquiry() }
        let vendor = SCSICommand.vendor(ofInquiry: inquiry) ?? ""
        guard vendor == Self.vendor else { throw .notLifeScan(disk: disk.name, vendor: vendor) }
        let block = try transport(waitingFor: "block 0") { () throws(TransportError) in try disk.readBlock(0) }.bytes
        try checkSignature(block, disk: disk.name)
    }

    package static func checkSignature(_ block: [UInt8], disk: String) throws(VerioError) {
        let end = signatureOffset + signature.count
        guard block.count >= end, Array(block[signatureOffset..<end]) == signature else {
            let found = block.count > signatureOffset ? block[signatureOffset..<min(end, block.count)] : []
            throw .wrongSignature(disk: disk, found: String(decoding: found.map { (32...126).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self))
        }
    }

    /// Writes `command` to its block and reads the reply from it.
    static func ask(_ command: VerioCommand, _ disk: any SCSIDisk, _ session: inout VerioSession) throws(VerioError) {
        try transport(waitingFor: "\(command.name) to be taken") { () throws(TransportError) in
            try disk.writeBlock(command.block, VerioFrame.block(command.message))
        }
        let read = try transport(waitingFor: "the reply to \(command.name)") { () throws(TransportError) in try disk.readBlock(command.block) }
        let reply = "reply to \(command.name) from \(disk.name) (block \(command.block))"
        try session.absorb(command, message: try VerioFrame.decode(read.bytes, reply: reply), hostTime: read.hostTime, reply: reply)
    }

    private static func transport<T>(waitingFor what: String, _ body: () throws(TransportError) -> T) throws(VerioError) -> T {
        do {
            return try body()
        } catch .timeout(let endpoint) {
            throw .noAnswer(waitingFor: what, .timeout(endpoint: endpoint))
        } catch {
            throw .transport(error)
        }
    }

    /// Reads a recorded conversation passively: every WRITE(10) of a command to block 3 or 4 is
    /// paired with the READ(10) of the same block after it.
    package static func decode(recorded device: RecordedUSBDevice) throws(VerioError) -> GlucoseDownload {
        let name = device.description.idString
        var session = VerioSession()
        var pending: (command: VerioCommand, block: UInt32)?
        var identified = false
        for command in BulkOnly.commands(in: device.transfers) {
            let cdb = command.wrapper.command
            guard let opcode = cdb.first else { continue }
            if opcode == SCSICommand.inquiryOpcode, let vendor = SCSICommand.vendor(ofInquiry: command.data) {
                guard vendor == Self.vendor else { throw VerioError.notLifeScan(disk: name, vendor: vendor) }
                continue
            }
            guard opcode == SCSICommand.read10Opcode || opcode == SCSICommand.write10Opcode, let lba = SCSICommand.lba(of: cdb) else { continue }
            if opcode == SCSICommand.read10Opcode, lba == 0, command.data.count >= signatureOffset + signature.count {
                try checkSignature(command.data, disk: name)
                identified = true
                continue
            }
            if opcode == SCSICommand.write10Opcode {
                let message = try? VerioFrame.decode(command.data, reply: "request")
                pending = message.flatMap { VerioCommand(message: $0, block: lba) }.map { ($0, lba) }
                continue
            }
            guard let request = pending, request.block == lba else { continue }
            pending = nil
            let reply = "reply to \(request.command.name) (block \(lba), capture packet \(command.packetNumber))"
            guard command.status?.status ?? 0 == 0, command.data.count >= VerioFrame.overhead else {
                throw VerioError.incomplete(reason: "the \(reply) holds no data")
            }
            try session.absorb(request.command, message: try VerioFrame.decode(command.data, reply: reply), hostTime: command.hostTime, reply: reply)
        }
        if !identified, session.serial == nil {
            throw VerioError.incomplete(reason: "the recording of \(name) holds no Verio conversation")
        }
        return try session.normalised()
    }
}
