import Drivers
import Foundation
import Transport
import TransportReplay

#if canImport(Glibc)
    import Glibc
#endif

extension FreeStyleReaderSimulator {
    /// Takes one report from the host, as the interrupt OUT endpoint or a SET_REPORT would.
    package func handle(report: [UInt8]) {
        receive(report)
    }

    /// Takes the reports the reader has queued for the host, oldest first.
    package func takeReports() -> [[UInt8]] {
        let reports = outbox
        outbox.removeAll()
        return reports
    }

    /// Serves the host on two file descriptors, one 64-byte report at a time: each report read
    /// from `input` is the host's, and every report the reader answers is written to `output`
    /// whole. A HID gadget's `/dev/hidgN` is both (the host's output reports are read from it,
    /// the reader's input reports written to it); a pipe pair serves a host in another process.
    /// Returns when `input` ends; throws on a read or write error. With `recording`, the session
    /// is also written there as a usbmon pcap, as the host's USB stack would have seen it (the
    /// host's reports to the interrupt OUT endpoint, the reader's from the IN endpoint).
    package func serve(input: Int32, output: Int32, recording: URL? = nil) throws {
        let recorder = try recording.map { url in try RecordingUSBTransport(recording: self, to: url, clock: hostClock) }
        let out = USBEndpoint(address: 0x01, type: .interrupt, maxPacketSize: 64)
        let inward = USBEndpoint(address: 0x81, type: .interrupt, maxPacketSize: 64)
        while let report = try Self.readReport(from: input) {
            guard let recorder else {
                handle(report: report)
                for reply in takeReports() { try Self.write(reply, to: output) }
                continue
            }
            try recorder.write(report, to: out, timeout: .seconds(1))
            for _ in 0..<outbox.count {
                try Self.write(try recorder.read(from: inward, maxLength: FreeStyleMessage.reportSize, timeout: .seconds(1)).bytes, to: output)
            }
        }
        try recorder?.finish()
    }

    /// One report: a read of a HID gadget gives one whole report; from a pipe, bytes are gathered
    /// until there are 64. Nil at the end of the input.
    static func readReport(from fd: Int32) throws -> [UInt8]? {
        var report = [UInt8](repeating: 0, count: FreeStyleMessage.reportSize)
        var filled = 0
        while filled < report.count {
            let count = report.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if count == 0 { return filled == 0 ? nil : Array(report[..<filled]) }
            filled += count
            if isCharacterDevice(fd) { break }
        }
        return Array(report[..<filled])
    }

    private static func isCharacterDevice(_ fd: Int32) -> Bool {
        var status = stat()
        return fstat(fd, &status) == 0 && (status.st_mode & S_IFMT) == S_IFCHR
    }

    static func write(_ report: [UInt8], to fd: Int32) throws {
        var written = 0
        while written < report.count {
            let count = report.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            written += count
        }
    }
}
