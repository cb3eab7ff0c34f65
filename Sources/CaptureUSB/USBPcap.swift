import Transport

/// Facts of the USBPcap (Windows) packet header, link type 249.
enum USBPcap {
    static let linkType: UInt32 = 249
    /// The common header: headerLen … dataLength.
    static let baseHeaderLength = 27
    /// Control transfers add a one-byte stage.
    static let controlHeaderLength = 28

    enum Stage: UInt8 {
        case setup = 0
        case data = 1
        case status = 2
        case complete = 3
    }

    /// A USBD_STATUS as the negative errno Linux would report for the same failure (0 = success).
    /// Unknown failures become -EIO (-5).
    static func errno(fromUSBDStatus status: UInt32) -> Int32 {
        guard status & 0x8000_0000 != 0 else { return 0 }
        switch status {
        case 0xC000_0001, 0xC000_0003: return -84  // CRC, data toggle mismatch: -EILSEQ
        case 0xC000_0002, 0xC000_0005: return -71  // bit stuffing, device not responding: -EPROTO
        case 0xC000_0004, 0xC000_0030: return -32  // stall, endpoint halted: -EPIPE
        case 0xC000_0008, 0xC000_0012: return -75  // data overrun, babble: -EOVERFLOW
        case 0xC000_0009: return -121  // data underrun: -EREMOTEIO
        case 0xC000_6000: return -110  // timeout: -ETIMEDOUT
        case 0xC000_7000: return -108  // device gone: -ESHUTDOWN
        case 0xC001_0000: return -2  // canceled: -ENOENT, as usbmon shows a killed URB
        default: return -5
        }
    }
}

/// Pairs USBPcap packets into transfers, following what the USBPcap driver writes:
///
/// - Bulk and interrupt transfers are one packet each: an OUT transfer is logged on its way down
///   (the request, with the data), an IN transfer on its way back (the completion, with the data).
///   OUT transfers are therefore emitted at their request with status 0; should a completion with
///   the same irpId follow, it updates that transfer's status and timestamp.
/// - Control transfers are a setup-stage request (8 setup bytes as data), an optional data stage
///   (OUT: a request; IN: a completion), and a status-stage completion that finishes the transfer.
/// - Isochronous packets are ignored, as are control transfers never finished inside the capture.
struct USBPcapAssembler {
    private struct PendingControl {
        var setupPacket: Int?
        var dataPacket: Int?
        var setup: [UInt8]?
        var data: [UInt8] = []
        var isTruncated = false
    }

    private var controls: [UInt64: PendingControl] = [:]
    /// irpId → index in the transfers of a bulk/interrupt OUT emitted at its request.
    private var outWaitingForCompletion: [UInt64: Int] = [:]

    mutating func add(
        _ record: CapturedPacket, bytes: [UInt8], file: String, into transfers: inout [USBTransfer]
    ) throws(CaptureError) {
        let h = record.start
        guard record.capturedLength >= USBPcap.baseHeaderLength else {
            throw .badPacketHeader(
                file: file, packet: record.number, offset: record.offset, kind: "USBPcap",
                needed: USBPcap.baseHeaderLength, found: record.capturedLength)
        }
        let headerLength = Int(bytes.u16(at: h))
        guard headerLength >= USBPcap.baseHeaderLength, headerLength <= record.capturedLength else {
            throw .badPacketHeader(
                file: file, packet: record.number, offset: record.offset, kind: "USBPcap (headerLen \(headerLength))",
                needed: max(headerLength, USBPcap.baseHeaderLength),
                found: min(headerLength, record.capturedLength))
        }
        guard let type = USBTransferType(rawValue: bytes[h + 22]), type != .isochronous else { return }
        if type == .control, headerLength < USBPcap.controlHeaderLength {
            throw .badPacketHeader(
                file: file, packet: record.number, offset: record.offset, kind: "USBPcap control",
                needed: USBPcap.controlHeaderLength, found: headerLength)
        }
        let irpId = bytes.u64(at: h + 2)
        let status = USBPcap.errno(fromUSBDStatus: bytes.u32(at: h + 10))
        let isCompletion = bytes[h + 16] & 0x01 != 0
        let bus = bytes.u16(at: h + 17)
        let rawDevice = bytes.u16(at: h + 19)
        let device = rawDevice > 0xFF ? 0 : UInt8(rawDevice)
        let endpoint = bytes[h + 21]
        let dataLength = Int(bytes.u32(at: h + 23))

        let dataStart = h + headerLength
        let dataCount = min(dataLength, record.capturedLength - headerLength)
        let isShort = record.isCut || dataCount < dataLength
        var data: [UInt8] { Array(bytes[dataStart..<(dataStart + dataCount)]) }

        func transfer(_ number: Int, _ direction: USBDirection) -> USBTransfer {
            USBTransfer(
                packetNumber: number, bus: bus, device: device, endpoint: endpoint, type: type,
                direction: direction, data: [], status: status, timestamp: record.timestamp)
        }

        if type != .control {
            let direction: USBDirection = endpoint & 0x80 != 0 ? .in : .out
            switch (direction, isCompletion) {
            case (.out, false):
                var out = transfer(record.number, .out)
                out.status = 0
                out.data = data
                out.isTruncated = isShort
                outWaitingForCompletion[irpId] = transfers.count
                transfers.append(out)
            case (.out, true):
                if let index = outWaitingForCompletion.removeValue(forKey: irpId) {
                    transfers[index].status = status
                    transfers[index].timestamp = record.timestamp
                }
            case (.in, true):
                var answer = transfer(record.number, .in)
                answer.data = data
                answer.isTruncated = isShort
                transfers.append(answer)
            case (.in, false):
                break
            }
            return
        }

        switch USBPcap.Stage(rawValue: bytes[h + 27]) {
        case .setup:
            var control = PendingControl(setupPacket: record.number)
            control.setup = dataCount >= 8 ? Array(bytes[dataStart..<(dataStart + 8)]) : nil
            control.isTruncated = dataCount < 8
            controls[irpId] = control
        case .data:
            var control = controls[irpId] ?? PendingControl()
            control.dataPacket = record.number
            control.data = data
            control.isTruncated = control.isTruncated || isShort
            controls[irpId] = control
        case .status, .complete:
            guard isCompletion, let control = controls.removeValue(forKey: irpId) else { return }
            let direction: USBDirection =
                if let setup = control.setup { setup[0] & 0x80 != 0 ? .in : .out } else {
                    endpoint & 0x80 != 0 ? .in : .out
                }
            let number = control.dataPacket ?? (direction == .out ? control.setupPacket : nil) ?? record.number
            var finished = transfer(number, direction)
            finished.setup = control.setup
            finished.data = control.data
            finished.isTruncated = control.isTruncated || record.isCut
            transfers.append(finished)
        case nil:
            return
        }
    }
}
