/// The byte order of a container's fields.
@usableFromInline package enum ByteOrder: Sendable {
    case little
    case big
}

/// Fixed-width integer reads at integer offsets. Callers check bounds first; these only trap on a
/// programming error.
extension Array where Element == UInt8 {
    @inlinable @inline(__always)
    package func u16(at index: Int, _ order: ByteOrder = .little) -> UInt16 {
        let a = UInt16(self[index])
        let b = UInt16(self[index + 1])
        return order == .little ? a | b << 8 : a << 8 | b
    }

    @inlinable @inline(__always)
    package func u32(at index: Int, _ order: ByteOrder = .little) -> UInt32 {
        let a = UInt32(self[index])
        let b = UInt32(self[index + 1])
        let c = UInt32(self[index + 2])
        let d = UInt32(self[index + 3])
        return order == .little ? a | b << 8 | c << 16 | d << 24 : a << 24 | b << 16 | c << 8 | d
    }

    @inlinable @inline(__always)
    package func u64(at index: Int, _ order: ByteOrder = .little) -> UInt64 {
        let first = UInt64(u32(at: index, order))
        let second = UInt64(u32(at: index + 4, order))
        return order == .little ? first | second << 32 : first << 32 | second
    }

    @inlinable @inline(__always)
    package func i32(at index: Int, _ order: ByteOrder = .little) -> Int32 {
        Int32(bitPattern: u32(at: index, order))
    }

    @inlinable @inline(__always)
    package func i64(at index: Int, _ order: ByteOrder = .little) -> Int64 {
        Int64(bitPattern: u64(at: index, order))
    }
}

/// Little-endian integer appends, for the writers.
extension Array where Element == UInt8 {
    package mutating func appendLE(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    package mutating func appendLE(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    package mutating func appendLE(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    package mutating func appendLE(_ value: Int32) { appendLE(UInt32(bitPattern: value)) }

    package mutating func appendLE(_ value: Int64) { appendLE(UInt64(bitPattern: value)) }
}
