/// The receiver answers some reads with a line of XML. Only element names and attributes matter,
/// so this scans them directly instead of pulling in an XML parser.
package enum DexcomXML {
    /// The attributes of the first element in `bytes` (text stops at the first NUL).
    package static func attributes(of bytes: some Collection<UInt8>) -> [String: String] {
        elements(in: bytes).first?.attributes ?? [:]
    }

    /// Every element in `bytes`, in order, with its attributes (entities are left as they are).
    package static func elements(in bytes: some Collection<UInt8>) -> [(name: String, attributes: [String: String])] {
        let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        var result: [(name: String, attributes: [String: String])] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            guard let close = rest.firstIndex(of: ">") else { break }
            let tag = rest[..<close]
            rest = rest[rest.index(after: close)...]
            guard let first = tag.first, first != "/", first != "?", first != "!" else { continue }
            let name = String(tag.prefix { !$0.isWhitespace && $0 != "/" })
            result.append((name, parseAttributes(tag.dropFirst(name.count))))
        }
        return result
    }

    /// Characters around an attribute's name: XML white space, and the `/` of an empty tag.
    private static func isSpaceOrSlash(_ character: Character) -> Bool {
        character == " " || character == "\t" || character == "\r" || character == "\n" || character == "\r\n"
            || character == "/"
    }

    private static func parseAttributes(_ text: Substring) -> [String: String] {
        var attributes: [String: String] = [:]
        var rest = text
        while let equals = rest.firstIndex(of: "=") {
            let key = String(rest[..<equals].trimming(isSpaceOrSlash))
            rest = rest[rest.index(after: equals)...].drop { $0.isWhitespace }
            guard let quote = rest.first, quote == "'" || quote == "\"" else { break }
            rest = rest.dropFirst()
            guard let end = rest.firstIndex(of: quote) else { break }
            attributes[key] = String(rest[..<end])
            rest = rest[rest.index(after: end)...]
        }
        return attributes
    }
}
