import Foundation
import Transport

/// Writes transfers as a transcript: one `out,<hex>` / `in,<hex>` line each, uppercase hex bytes
/// separated by spaces. A transcript keeps only direction and data: setup packets, endpoints,
/// statuses and times are not written.
package final class TranscriptWriter {
    private let file: CaptureFile

    /// Creates (or empties) the file at `url`.
    package init(url: URL) throws(CaptureError) {
        file = try CaptureError.writing { () throws(FileWriteFailure) in try CaptureFile(url: url) }
    }

    /// Appends the transfer's line; the times and `requestedLength` are accepted for symmetry with
    /// `UsbmonPcapWriter` and ignored.
    package func append(
        _ transfer: USBTransfer, submittedAt: Date, completedAt: Date, requestedLength: Int? = nil
    ) throws(CaptureError) {
        let line = (transfer.direction == .out ? "out," : "in,") + Hex.encode(transfer.data) + "\n"
        try CaptureError.writing { () throws(FileWriteFailure) in try file.write(Array(line.utf8)) }
    }

    /// Flushes the file to storage and closes it.
    package func close() throws(CaptureError) {
        try CaptureError.writing { () throws(FileWriteFailure) in try file.close() }
    }
}
