import Foundation

/// Reads USB captures: classic pcap and pcapng holding Linux usbmon (link types 220, 189) or
/// Windows USBPcap (249) packets, and one-line-per-transfer transcripts. The format is detected
/// from the content, not the file name.
public enum USBCaptureReader {
    /// Reads and parses the file at `url`; errors name the file by its last path component.
    public static func read(contentsOf url: URL) throws(CaptureError) -> USBCapture {
        let name = url.lastPathComponent
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(file: name, reason: reason(for: error))
        }
        return try parse([UInt8](data), name: name)
    }

    /// Parses a whole capture held in memory; `name` is used in error messages.
    ///
    /// Transfers come out completed, in completion order; see `UsbmonAssembler` for how
    /// submissions and completions are paired and which incomplete ones are dropped.
    public static func parse(_ bytes: [UInt8], name: String) throws(CaptureError) -> USBCapture {
        guard !bytes.isEmpty else { throw .empty(file: name) }
        if PcapReader.magic(bytes) != nil { return try PcapReader.parse(bytes, name: name) }
        if PcapngReader.isPcapng(bytes) { return try PcapngReader.parse(bytes, name: name) }
        if TranscriptReader.looksLikeTranscript(bytes) { return try TranscriptReader.parse(bytes, name: name) }
        throw .unknownFormat(file: name, firstBytes: Array(bytes.prefix(16)))
    }

    /// The operating system's reason, when the error carries one.
    private static func reason(for error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        return nsError.localizedDescription
    }
}
