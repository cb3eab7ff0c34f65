import Transport

/// Little-endian integer reads from byte arrays, bounds-checked by the caller.
extension Array where Element == UInt8 {
    @inlinable package func u16le(at offset: Int) -> UInt16 {
        UInt16(self[offset]) | UInt16(self[offset + 1]) << 8
    }

    @inlinable package func u32le(at offset: Int) -> UInt32 {
        UInt32(self[offset]) | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2]) << 16 | UInt32(self[offset + 3]) << 24
    }

    @inlinable package func i32le(at offset: Int) -> Int32 { Int32(bitPattern: u32le(at: offset)) }
}

extension ArraySlice where Element == UInt8 {
    @inlinable package func u16le(at offset: Int) -> UInt16 {
        UInt16(self[startIndex + offset]) | UInt16(self[startIndex + offset + 1]) << 8
    }

    @inlinable package func u32le(at offset: Int) -> UInt32 {
        UInt32(self[startIndex + offset]) | UInt32(self[startIndex + offset + 1]) << 8
            | UInt32(self[startIndex + offset + 2]) << 16 | UInt32(self[startIndex + offset + 3]) << 24
    }
}

extension FixedWidthInteger {
    /// The value's bytes, least significant first.
    @inlinable package var littleEndianBytes: [UInt8] {
        (0..<(Self.bitWidth / 8)).map { UInt8(truncatingIfNeeded: self >> ($0 * 8)) }
    }
}

extension StringProtocol {
    /// The text without any of `characters` at either end.
    func trimmingCharacters(in characters: String) -> String {
        String(trimming { characters.contains($0) })
    }

    /// The text without the characters at either end for which `isTrimmed` is true.
    func trimming(_ isTrimmed: (Character) -> Bool) -> SubSequence {
        guard let first = firstIndex(where: { !isTrimmed($0) }) else { return self[endIndex...] }
        return self[first...lastIndex(where: { !isTrimmed($0) })!]
    }
}
