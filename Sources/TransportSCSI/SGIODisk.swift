import CSCSIGeneric
import Foundation
import Transport

/// A SCSI device node (`/dev/sg1`, or the block node `/dev/sda`) driven with the kernel's SG_IO
/// ioctl (Linux `scsi/sg.h`; the SCSI Generic HOWTO, "SG_IO"): each command descriptor block
/// goes to the device as it is, its data moved in or out, and its status read back.
package final class SGIODevice {
    package let path: String
    private var descriptor: Int32
    /// How long the kernel waits for the device before it gives up on a command.
    package var timeout: Duration = .seconds(5)

    package init(path: String) throws(TransportError) {
        self.path = path
        descriptor = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw .openFailed(device: path, reason: String(cString: strerror(code)) + (code == EACCES ? " (see `glucobridge doctor`)" : ""))
        }
    }

    deinit { close() }

    package func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Runs `cdb`: `dataIn` bytes come back, or `dataOut` is sent. The answer is the data that
    /// came back and the SCSI status (0 GOOD, 2 CHECK CONDITION) with its sense bytes.
    package func execute(_ cdb: [UInt8], dataIn: Int = 0, dataOut: [UInt8] = []) throws(TransportError) -> (
        data: [UInt8], status: UInt8, sense: [UInt8]
    ) {
        guard descriptor >= 0 else { throw .disconnected("\(path) is closed") }
        var command = cdb
        var sense = [UInt8](repeating: 0, count: 32)
        var buffer = dataOut.isEmpty ? [UInt8](repeating: 0, count: dataIn) : dataOut
        var header = sg_io_hdr_t()
        let (seconds, attoseconds) = timeout.components
        let result: Int32 = command.withUnsafeMutableBufferPointer { cdbPointer in
            sense.withUnsafeMutableBufferPointer { sensePointer in
                buffer.withUnsafeMutableBytes { data in
                    header.interface_id = Int32(UInt8(ascii: "S"))
                    header.dxfer_direction = dataOut.isEmpty ? (dataIn == 0 ? SG_DXFER_NONE : SG_DXFER_FROM_DEV) : SG_DXFER_TO_DEV
                    header.cmd_len = UInt8(cdbPointer.count)
                    header.cmdp = cdbPointer.baseAddress
                    header.mx_sb_len = UInt8(sensePointer.count)
                    header.sbp = sensePointer.baseAddress
                    header.dxfer_len = UInt32(data.count)
                    header.dxferp = data.count == 0 ? nil : data.baseAddress
                    header.timeout = UInt32(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
                    return glucobridge_sg_io(descriptor, &header)
                }
            }
        }
        if result < 0 {
            let code = errno
            let reason = String(cString: strerror(code))
            if code == ENODEV || code == ENXIO || code == EIO { throw .disconnected("\(path): \(reason)") }
            throw .transferFailed(endpoint: 0, reason: "SG_IO on \(path) for \(Hex.encode(cdb)): \(reason)")
        }
        // The host adapter's DID_TIME_OUT (3): the device did not answer in time; DID_NO_CONNECT
        // (1) and DID_BAD_TARGET (4): it is gone.
        switch header.host_status {
        case 0: break
        case 3: throw .timeout(endpoint: 0x81)
        case 1, 4: throw .disconnected("\(path): the device is gone (host status \(header.host_status))")
        default:
            // usb-storage fails the command in flight when the device is unplugged with DID_ERROR
            // (7), as it fails any broken transfer: the node leaving sysfs tells the two apart.
            if nodeLeaves() { throw .disconnected("\(path) left during \(Hex.encode(cdb)) (host status \(header.host_status))") }
            throw .transferFailed(endpoint: 0, reason: "SG_IO on \(path) for \(Hex.encode(cdb)): host status \(header.host_status)")
        }
        let moved = max(0, buffer.count - Int(header.resid))
        return (dataOut.isEmpty ? Array(buffer.prefix(moved)) : [], header.status, Array(sense.prefix(Int(header.sb_len_wr))))
    }

    /// Whether the open node's device leaves sysfs (`/sys/dev/char/MAJOR:MINOR`, or `block`)
    /// within a second: the kernel removes it as it takes an unplugged disk apart, just after it
    /// has failed the commands in flight.
    private func nodeLeaves() -> Bool {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return true }
        let device = UInt64(info.st_rdev)
        let major = (device >> 8) & 0xFFF | (device >> 32) & ~UInt64(0xFFF)
        let minor = device & 0xFF | (device >> 12) & ~UInt64(0xFF)
        let kind = info.st_mode & S_IFMT == S_IFBLK ? "block" : "char"
        let entry = "/sys/dev/\(kind)/\(major):\(minor)"
        for _ in 0..<10 {
            if access(entry, F_OK) != 0 { return true }
            usleep(100_000)
        }
        return false
    }
}
