import Transport

/// The one-transfer-per-line transcript: `out,<hex>` or `in,<hex>`, direction in any case, hex bytes
/// optionally separated by spaces; blank lines and lines starting with `#` are ignored; CRLF and LF
/// line ends are both accepted.
enum TranscriptReader {
    private static let newline = UInt8(ascii: "\n")
    private static let comma = UInt8(ascii: ",")
    private static let hash = UInt8(ascii: "#")
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// One meaningful line: its 1-based number and its byte range with surrounding blanks trimmed.
    private struct Line {
        var number: Int
        var range: Range<Int>
    }

    /// Whether the content is text whose first meaningful line starts with `out,` or `in,`.
    static func looksLikeTranscript(_ bytes: [UInt8]) -> Bool {
        guard !bytes.prefix(4096).contains(0) else { return false }
        var first: Line?
        forEachLine(bytes) { line in
            first = line
            return false
        }
        guard let first else { return false }
        guard let comma = bytes[first.range].firstIndex(of: comma) else { return false }
        return direction(bytes, first.range.lowerBound..<comma) != nil
    }

    static func parse(_ bytes: [UInt8], name: String) throws(CaptureError) -> USBCapture {
        var transfers: [USBTransfer] = []
        try forEachLine(bytes) { line throws(CaptureError) in
            transfers.append(try transfer(from: line, in: bytes, name: name))
            return true
        }
        return USBCapture(format: .transcript, transfers: transfers)
    }

    private static func transfer(from line: Line, in bytes: [UInt8], name: String) throws(CaptureError) -> USBTransfer {
        func bad(_ problem: String) -> CaptureError {
            var text = String(decoding: bytes[line.range], as: UTF8.self)
            if text.count > 80 { text = String(text.prefix(77)) + "…" }
            return .badTranscriptLine(file: name, line: line.number, text: text, problem: problem)
        }
        guard let comma = bytes[line.range].firstIndex(of: comma) else { throw bad("no comma after the direction") }
        guard let direction = direction(bytes, line.range.lowerBound..<comma) else {
            let found = String(decoding: bytes[line.range.lowerBound..<comma], as: UTF8.self)
            throw bad("unknown direction \"\(found)\" (use out or in)")
        }
        let hex = bytes[(comma + 1)..<line.range.upperBound]
        guard let data = Hex.decode(ascii: hex) else { throw bad(Hex.problem(in: hex)) }
        return USBTransfer(packetNumber: line.number, endpoint: nil, type: .bulk, direction: direction, data: data)
    }

    /// `out` or `in` in any case, surrounding blanks allowed.
    private static func direction(_ bytes: [UInt8], _ range: Range<Int>) -> USBDirection? {
        var word = bytes[range]
        while let c = word.first, Hex.isBlank(c) { word.removeFirst() }
        while let c = word.last, Hex.isBlank(c) { word.removeLast() }
        func matches(_ expected: StaticString) -> Bool {
            word.count == expected.utf8CodeUnitCount
                && zip(word, UnsafeBufferPointer(start: expected.utf8Start, count: word.count)).allSatisfy {
                    $0 | 0x20 == $1
                }
        }
        if matches("out") { return .out }
        if matches("in") { return .in }
        return nil
    }

    /// Calls `body` with each non-blank, non-comment line until it returns false.
    private static func forEachLine<E: Error>(_ bytes: [UInt8], _ body: (Line) throws(E) -> Bool) throws(E) {
        var start = bytes.starts(with: byteOrderMark) ? byteOrderMark.count : 0
        var number = 0
        while start < bytes.count {
            number += 1
            let next = bytes[start...].firstIndex(of: newline) ?? bytes.count
            var lower = start
            var upper = next
            while lower < upper, Hex.isBlank(bytes[lower]) { lower += 1 }
            while upper > lower, Hex.isBlank(bytes[upper - 1]) || bytes[upper - 1] == UInt8(ascii: "\r") { upper -= 1 }
            start = next + 1
            if lower == upper || bytes[lower] == hash { continue }
            if try !body(Line(number: number, range: lower..<upper)) { return }
        }
    }
}
