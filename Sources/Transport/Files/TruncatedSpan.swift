/// A header or record that runs past the end of a capture file, as the truncation messages of
/// ``CaptureError`` and ``BTSnoopError`` name it.
package enum TruncatedSpan {
    /// The file header of a `format` (`pcap`, `btsnoop`) file.
    case fileHeader(format: String)
    /// The header of record `number`, which the format calls a `unit` (`packet`, `record`).
    case recordHeader(unit: String, number: Int)
    /// Record `number` itself, whose length claims so many `claiming` (`bytes`).
    case recordBody(unit: String, number: Int, claiming: String)

    /// `FILE: packet 3 at byte 88 claims 64 bytes but only 20 remain — the file is cut short`.
    package func message(file: String, offset: Int, needed: Int, remaining: Int) -> String {
        let what =
            switch self {
            case .fileHeader(let format): "the \(format) file header at byte \(offset) needs \(needed) bytes"
            case .recordHeader(let unit, let number): "\(unit) \(number) at byte \(offset): its record header needs \(needed) bytes"
            case .recordBody(let unit, let number, let claiming): "\(unit) \(number) at byte \(offset) claims \(needed) \(claiming)"
            }
        return "\(file): \(what) but only \(remaining) remain — the file is cut short"
    }
}
