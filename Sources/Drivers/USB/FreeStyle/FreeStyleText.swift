/// The text layer of the shared HID protocol: `$name?` commands, and replies of the form
/// `<message>CKSM:<8 hex>\r\nCMD OK\r\n` whose checksum is the byte sum of `<message>`.
/// Multi-record replies carry `Log Empty\r\n`, or record lines followed by `N,<8 hex>\r\n`,
/// the count of lines and the byte sum of those lines.
public enum FreeStyleText {
    static let ok = Array("CMD OK\r\n".utf8)
    static let fail = Array("CMD Fail!\r\n".utf8)
    static let checksumTag = Array("CKSM:".utf8)
    static let crlf: [UInt8] = [0x0D, 0x0A]
    static let logEmpty = Array("Log Empty\r\n".utf8)
    /// No reader holds this much text; a reply going past it is not going to end.
    package static let replyLimit = 16 << 20

    /// The message carrying `command` (e.g. `$date?`), CR LF terminated as Abbott's software sends it.
    package static func message(for command: String) -> FreeStyleMessage {
        FreeStyleMessage(type: FreeStyleMessage.Kind.text, payload: Array((command + "\r\n").utf8))
    }

    /// The command a text message carries, without its line end, for messages and dispatch.
    static func commandName(_ payload: [UInt8]) -> String {
        var bytes = payload[...]
        while let last = bytes.last, last == 0x0D || last == 0x0A || last == 0 { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The byte sum the reader puts in `CKSM:` and in a multi-record trailer.
    package static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        bytes.reduce(0) { $0 &+ UInt32($1) }
    }

    /// Whether a reply being put together has ended (`CMD OK` or `CMD Fail!` and its line end).
    static func isComplete(_ reply: [UInt8]) -> Bool {
        reply.ends(with: ok) || reply.ends(with: fail)
    }

    /// Checks a whole reply and returns its message: the format, then the checksum, then the
    /// status (a refused command is an error too).
    public static func verifiedMessage(of reply: [UInt8], command: String) throws(FreeStyleError) -> [UInt8] {
        let refused = reply.ends(with: fail)
        guard refused || reply.ends(with: ok) else {
            throw .malformedReply(command: command, reason: "it does not end with CMD OK or CMD Fail!")
        }
        let body = reply.dropLast(refused ? fail.count : ok.count)
        let tail = checksumTag.count + 8 + crlf.count
        guard body.count >= tail, body.ends(with: crlf) else {
            throw .malformedReply(command: command, reason: "no CKSM:<8 hex digits> line before the status")
        }
        let tagStart = body.endIndex - tail
        let digits = body[(tagStart + checksumTag.count)..<(body.endIndex - crlf.count)]
        guard body[tagStart..<(tagStart + checksumTag.count)].elementsEqual(checksumTag),
            let stated = upperHex(digits)
        else {
            throw .malformedReply(command: command, reason: "no CKSM:<8 uppercase hex digits> line before the status")
        }
        let message = Array(body[..<tagStart])
        let computed = checksum(message)
        guard computed == stated else {
            throw .checksumMismatch(command: command, part: "CKSM", stated: stated, computed: computed)
        }
        if refused { throw .commandFailed(command: command) }
        return message
    }

    /// The record lines of a verified multi-record message, each split at its commas, after the
    /// trailer's count and checksum are checked. `Log Empty` is no records.
    package static func records(in message: [UInt8], command: String) throws(FreeStyleError) -> [[String]] {
        if message == logEmpty { return [] }
        guard message.ends(with: crlf) else {
            throw .badTrailer(command: command, reason: "the reply does not end with a line end")
        }
        let withoutEnd = message.dropLast(crlf.count)
        let trailerStart = withoutEnd.lastRange(of: crlf).map { $0.upperBound } ?? withoutEnd.startIndex
        let trailer = withoutEnd[trailerStart...]
        guard let comma = trailer.firstIndex(of: UInt8(ascii: ",")),
            let count = Int(String(decoding: trailer[..<comma], as: UTF8.self)), count >= 0,
            let stated = upperHex(trailer[(comma + 1)...])
        else {
            throw .badTrailer(
                command: command, reason: "the last line \"\(String(decoding: trailer.prefix(40), as: UTF8.self))\" is not N,<8 uppercase hex digits>"
            )
        }
        let lines = message[..<trailerStart]
        let computed = checksum(lines)
        guard computed == stated else {
            throw .checksumMismatch(command: command, part: "record trailer", stated: stated, computed: computed)
        }
        let rows = lines.lines(separatedBy: crlf).map { line in
            String(line.map { Character(Unicode.Scalar($0)) }).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        guard rows.count == count else {
            throw .badTrailer(command: command, reason: "the trailer counts \(count) records but \(rows.count) arrived")
        }
        return rows
    }

    /// Exactly 8 uppercase hex digits.
    private static func upperHex<C: Collection>(_ digits: C) -> UInt32? where C.Element == UInt8 {
        guard digits.count == 8 else { return nil }
        var value: UInt32 = 0
        for c in digits {
            switch c {
            case 0x30...0x39: value = value << 4 | UInt32(c - 0x30)
            case 0x41...0x46: value = value << 4 | UInt32(c - 0x37)
            default: return nil
            }
        }
        return value
    }
}

extension Collection where Element == UInt8 {
    /// Whether the collection ends with `suffix`.
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && suffix.reversed().elementsEqual(reversed().prefix(suffix.count))
    }
}

extension ArraySlice where Element == UInt8 {
    /// The range of the last occurrence of `pattern`.
    func lastRange(of pattern: [UInt8]) -> Range<Int>? {
        guard count >= pattern.count else { return nil }
        var start = endIndex - pattern.count
        while start >= startIndex {
            if self[start..<(start + pattern.count)].elementsEqual(pattern) { return start..<(start + pattern.count) }
            start -= 1
        }
        return nil
    }

    /// The pieces between occurrences of `separator`; an empty piece after a final separator is
    /// not returned.
    func lines(separatedBy separator: [UInt8]) -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var pieceStart = startIndex
        var index = startIndex
        while index + separator.count <= endIndex {
            if self[index..<(index + separator.count)].elementsEqual(separator) {
                pieces.append(self[pieceStart..<index])
                index += separator.count
                pieceStart = index
            } else {
                index += 1
            }
        }
        if pieceStart < endIndex { pieces.append(self[pieceStart..<endIndex]) }
        return pieces
    }
}
