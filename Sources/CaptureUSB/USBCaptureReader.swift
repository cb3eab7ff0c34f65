import Foundation
import Transport

/// Reads USB captures: classic pcap and pcapng holding Linux usbmon (link types 220, 189) or
/// Windows USBPcap (249) packets, and one-line-per-transfer transcripts. The format is detected
/// from the content, not the file name.
public enum USBCaptureReader {
    /// Reads and parses the file at `url`; errors name the file by its last path component.
    public static func read(contentsOf url: URL) throws(CaptureError) -> USBCapture {
        let name = url.lastPathComponent
        switch FileBytes.contents(ofPath: url.path) {
        case .success(let bytes): return try parse(bytes, name: name)
        case .failure(let failure): throw .unreadable(file: name, reason: failure.reason)
        }
    }

    /// Parses a whole capture held in memory; `name` is used in error messages.
    ///
    /// Submissions and completions are paired (usbmon by URB id, USBPcap by irpId) into completed
    /// transfers, in completion order. OUT data comes from the submission, IN data from the
    /// completion; the timestamp is the completion's. Dropped: submissions never completed before
    /// the end of the file, OUT completions whose submission predates the capture, and
    /// isochronous transfers. USBPcap logs a bulk OUT only on its way down, so its status is 0
    /// unless a completion for it follows.
    public static func parse(_ bytes: [UInt8], name: String) throws(CaptureError) -> USBCapture {
        guard !bytes.isEmpty else { throw .empty(file: name) }
        if PcapReader.magic(bytes) != nil { return try PcapReader.parse(bytes, name: name) }
        if PcapngReader.isPcapng(bytes) { return try PcapngReader.parse(bytes, name: name) }
        if TranscriptReader.looksLikeTranscript(bytes) { return try TranscriptReader.parse(bytes, name: name) }
        throw .unknownFormat(file: name, firstBytes: Array(bytes.prefix(16)))
    }
}
