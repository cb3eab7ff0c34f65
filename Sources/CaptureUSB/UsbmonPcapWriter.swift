import Foundation
import Transport

/// Writes transfers as the kernel's usbmon would record them: a classic little-endian pcap with
/// microsecond timestamps, link type 220 (64-byte usbmon headers), snapshot length 262144. Each
/// transfer becomes a submission ('S') and a completion ('C') record sharing a fresh URB id, so
/// `USBCaptureReader` reads back exactly the transfers appended.
package final class UsbmonPcapWriter {
    private let file: CaptureFile
    private let bus: UInt16
    private let device: UInt8
    private var nextURB: UInt64 = 0xFFFF_8880_0000_0000

    package static let snapshotLength: UInt32 = 262_144

    /// Creates (or empties) the file at `url` and writes the pcap header. `bus` and `device` are
    /// used for transfers whose own bus/device are 0.
    package init(url: URL, bus: UInt16, device: UInt8) throws(CaptureError) {
        file = try CaptureError.writing { () throws(FileWriteFailure) in try CaptureFile(url: url) }
        self.bus = bus
        self.device = device
        var header: [UInt8] = []
        header.appendLE(UInt32(0xA1B2_C3D4))
        header.appendLE(UInt16(2))
        header.appendLE(UInt16(4))
        header.appendLE(Int32(0))
        header.appendLE(UInt32(0))
        header.appendLE(Self.snapshotLength)
        header.appendLE(Usbmon.mmappedLinkType)
        try CaptureError.writing { () throws(FileWriteFailure) in try file.write(header) }
    }

    /// Appends one transfer as an 'S' record at `submittedAt` and a 'C' record at `completedAt`.
    ///
    /// OUT data travels on the submission, IN data on the completion; a control transfer's setup
    /// is on the submission. `requestedLength` is the IN submission's length (default: the data
    /// count). An endpoint of nil becomes 0 for control and 1 otherwise, with the direction bit.
    package func append(
        _ transfer: USBTransfer, submittedAt: Date, completedAt: Date, requestedLength: Int? = nil
    ) throws(CaptureError) {
        nextURB &+= 0x100
        let isIn = transfer.direction == .in
        let endpoint = transfer.endpoint ?? ((transfer.type == .control ? 0 : 1) | (isIn ? 0x80 : 0))
        let header = Header(
            id: nextURB, type: transfer.type, endpoint: endpoint,
            device: transfer.device != 0 ? transfer.device : device, bus: transfer.bus != 0 ? transfer.bus : bus)
        let setup = transfer.type == .control ? transfer.setup : nil
        let count = UInt32(clamping: transfer.data.count)

        var submission = header.record(
            event: Usbmon.submission, at: submittedAt, setup: setup, status: Usbmon.inProgress,
            length: isIn ? UInt32(clamping: requestedLength ?? transfer.data.count) : count,
            data: isIn ? nil : transfer.data, isIn: isIn)
        let completion = header.record(
            event: Usbmon.completion, at: completedAt, setup: nil, status: transfer.status, length: count,
            data: isIn ? transfer.data : nil, isIn: isIn)
        submission.append(contentsOf: completion)
        try CaptureError.writing { () throws(FileWriteFailure) in try file.write(submission) }
    }

    /// Flushes the file to storage and closes it.
    package func close() throws(CaptureError) {
        try CaptureError.writing { () throws(FileWriteFailure) in try file.close() }
    }

    /// The fields an 'S' and its 'C' share.
    private struct Header {
        var id: UInt64
        var type: USBTransferType
        var endpoint: UInt8
        var device: UInt8
        var bus: UInt16

        /// A pcap record (16-byte record header, 64-byte usbmon header, data).
        func record(
            event: UInt8, at time: Date, setup: [UInt8]?, status: Int32, length: UInt32, data: [UInt8]?, isIn: Bool
        ) -> [UInt8] {
            let (seconds, micros) = Self.split(time)
            let payload = data ?? []
            var out: [UInt8] = []
            out.reserveCapacity(PcapReader.recordHeaderLength + Usbmon.fullHeaderLength + payload.count)
            out.appendLE(UInt32(truncatingIfNeeded: seconds))
            out.appendLE(UInt32(micros))
            out.appendLE(UInt32(Usbmon.fullHeaderLength + payload.count))
            out.appendLE(UInt32(Usbmon.fullHeaderLength + payload.count))

            out.appendLE(id)
            out.append(event)
            out.append(type.rawValue)
            out.append(endpoint)
            out.append(device)
            out.appendLE(bus)
            let validSetup = setup.map { $0.count == 8 } ?? false
            out.append(validSetup ? 0 : UInt8(ascii: "-"))
            out.append(data != nil ? 0 : UInt8(ascii: isIn ? "<" : ">"))
            out.appendLE(seconds)
            out.appendLE(Int32(micros))
            out.appendLE(status)
            out.appendLE(length)
            out.appendLE(UInt32(payload.count))
            out.append(contentsOf: validSetup ? setup! : [UInt8](repeating: 0, count: 8))
            out.appendLE(Int32(0))  // interval
            out.appendLE(Int32(0))  // start_frame
            out.appendLE(UInt32(isIn ? 0x200 : 0))  // xfer_flags: URB_DIR_IN
            out.appendLE(UInt32(0))  // ndesc
            out.append(contentsOf: payload)
            return out
        }

        /// Whole seconds since 1970 and microseconds, rounded to the nearest microsecond.
        static func split(_ time: Date) -> (seconds: Int64, micros: Int) {
            let total = (time.timeIntervalSince1970 * 1_000_000).rounded()
            let micros = Int64(total)
            let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
            return (seconds, Int(micros - seconds * 1_000_000))
        }
    }
}
