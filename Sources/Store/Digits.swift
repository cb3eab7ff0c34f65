/// Parses fixed-width ASCII decimal digits; nil when the slice is empty or holds a non-digit.
func parseDigits(_ bytes: ArraySlice<UInt8>) -> Int? {
    guard !bytes.isEmpty else { return nil }
    var value = 0
    for byte in bytes {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return value
}
