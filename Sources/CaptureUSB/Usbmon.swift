import Transport

/// Facts of the Linux usbmon binary header that libpcap stores in each packet.
enum Usbmon {
    /// `LINKTYPE_USB_LINUX_MMAPPED`: 64-byte header.
    static let mmappedLinkType: UInt32 = 220
    /// `LINKTYPE_USB_LINUX`: the same header cut to 48 bytes.
    static let linkType: UInt32 = 189
    static let fullHeaderLength = 64
    static let shortHeaderLength = 48
    /// `-EINPROGRESS`, the status of every submission.
    static let inProgress: Int32 = -115

    static let submission = UInt8(ascii: "S")
    static let completion = UInt8(ascii: "C")
    static let submissionError = UInt8(ascii: "E")
}

/// Pairs usbmon submissions with their completions by URB id.
///
/// - A transfer is emitted when its completion ('C') or submission error ('E') arrives, so
///   transfers come out in completion order. A submission still waiting at the end of the file is
///   dropped: the transfer never finished inside the capture.
/// - OUT data comes from the submission, IN data from the completion; a completion whose
///   submission came before the capture started is kept for IN (its data is all there) and dropped
///   for OUT (its data was never captured).
/// - Isochronous packets are ignored.
struct UsbmonAssembler {
    private struct Submission {
        var packetNumber: Int
        var direction: USBDirection
        var setup: [UInt8]?
        var data: [UInt8]
        var isTruncated: Bool
    }

    private var pending: [UInt64: Submission] = [:]

    mutating func add(
        _ record: CapturedPacket, headerLength: Int, bytes: [UInt8], file: String, into transfers: inout [USBTransfer]
    ) throws(CaptureError) {
        guard record.capturedLength >= headerLength else {
            throw .badPacketHeader(
                file: file, packet: record.number, offset: record.offset, kind: "\(headerLength)-byte usbmon",
                needed: headerLength, found: record.capturedLength)
        }
        let h = record.start
        guard let type = USBTransferType(rawValue: bytes[h + 9]), type != .isochronous else { return }
        let event = bytes[h + 8]
        let id = bytes.u64(at: h)
        let epnum = bytes[h + 10]
        let flagSetup = bytes[h + 14]
        let flagData = bytes[h + 15]
        let status = bytes.i32(at: h + 28)
        let length = Int(bytes.u32(at: h + 32))
        let lenCap = Int(bytes.u32(at: h + 36))

        let setup: [UInt8]? = type == .control && flagSetup == 0 ? Array(bytes[(h + 40)..<(h + 48)]) : nil
        let direction: USBDirection =
            if let setup { setup[0] & 0x80 != 0 ? .in : .out } else { epnum & 0x80 != 0 ? .in : .out }

        // Data follows the header; never read past what was captured.
        let dataStart = h + headerLength
        let dataCount = flagData == 0 ? min(lenCap, record.capturedLength - headerLength) : 0

        switch event {
        case Usbmon.submission:
            let carriesData = direction == .out
            pending[id] = Submission(
                packetNumber: record.number, direction: direction, setup: setup,
                data: carriesData ? Array(bytes[dataStart..<(dataStart + dataCount)]) : [],
                isTruncated: record.isCut || (carriesData && dataCount < length))

        case Usbmon.completion, Usbmon.submissionError:
            let submission = pending.removeValue(forKey: id)
            let direction = submission?.direction ?? direction
            var transfer = USBTransfer(
                packetNumber: record.number, bus: bytes.u16(at: h + 12), device: bytes[h + 11], endpoint: epnum,
                type: type, direction: direction, setup: submission?.setup, data: [], status: status,
                timestamp: record.timestamp)
            if direction == .out {
                guard let submission else { return }
                transfer.packetNumber = submission.packetNumber
                transfer.data = submission.data
                transfer.isTruncated = submission.isTruncated || record.isCut
            } else if event == Usbmon.completion {
                transfer.data = Array(bytes[dataStart..<(dataStart + dataCount)])
                transfer.isTruncated = (submission?.isTruncated ?? false) || record.isCut || dataCount < length
            } else {
                transfer.isTruncated = (submission?.isTruncated ?? false) || record.isCut
            }
            transfers.append(transfer)

        default:
            return
        }
    }
}
