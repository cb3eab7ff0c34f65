/// A 128-bit key, as the integer it is written as (`0x1b1a1918131211100b0a090803020100` for the
/// test vector of Beaulieu et al. 2013, appendix C, whose words are l2 l1 l0 k0 from the left).
/// In bytes, a key is that integer least significant byte first.
public struct SpeckKey: Sendable, Equatable, CustomStringConvertible {
    /// The most significant 64 bits (l2 l1).
    package var high: UInt64
    /// The least significant 64 bits (l0 k0).
    package var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A key from up to 32 hex digits, with or without `0x` and `_` separators; nil when the
    /// text is not one.
    package init?(hex text: some StringProtocol) {
        var digits = Substring(text.trimmingCharacters(in: .whitespaces))
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        let clean = digits.filter { $0 != "_" }
        guard !clean.isEmpty, clean.count <= 32, clean.allSatisfy(\.isHexDigit) else { return nil }
        let padded = String(repeating: "0", count: 32 - clean.count) + clean
        guard let high = UInt64(padded.prefix(16), radix: 16), let low = UInt64(padded.suffix(16), radix: 16) else { return nil }
        self.init(high: high, low: low)
    }

    /// The key as 16 bytes, least significant first.
    package var bytes: [UInt8] { low.littleEndianBytes + high.littleEndianBytes }

    /// Never the key itself: keys do not go into logs or messages.
    public var description: String { "SpeckKey(…)" }
}

/// The Speck 64/128 block cipher: 32-bit words, 27 rounds, rotations 8 and 3 (Beaulieu, Shors,
/// Smith, Treatman-Clark, Weeks, Wingers, "The SIMON and SPECK Families of Lightweight Block
/// Ciphers", 2013, section 4). A block is two words (x, y); as bytes it is the 64-bit integer
/// `x << 32 | y` least significant byte first, the byte order of the paper's reference
/// implementation.
package struct Speck64_128: Sendable {
    package static let rounds = 27
    private let roundKeys: [UInt32]

    package init(key: SpeckKey) {
        // The key schedule: k0 and l0 l1 l2 are the key's words from the least significant; each
        // round's key comes from the round function applied to (l, k) with the round number as key.
        var l: [UInt32] = [
            UInt32(truncatingIfNeeded: key.low >> 32), UInt32(truncatingIfNeeded: key.high), UInt32(truncatingIfNeeded: key.high >> 32),
        ]
        var keys = [UInt32(truncatingIfNeeded: key.low)]
        keys.reserveCapacity(Self.rounds)
        for i in 0..<(Self.rounds - 1) {
            let (nextL, nextK) = Self.round(l[i], keys[i], key: UInt32(i))
            l.append(nextL)
            keys.append(nextK)
        }
        roundKeys = keys
    }

    @inline(__always)
    static func round(_ x: UInt32, _ y: UInt32, key: UInt32) -> (UInt32, UInt32) {
        let x = ((x >> 8 | x << 24) &+ y) ^ key
        return (x, (y << 3 | y >> 29) ^ x)
    }

    /// Encrypts the words (x, y).
    package func encrypt(x: UInt32, y: UInt32) -> (x: UInt32, y: UInt32) {
        var (x, y) = (x, y)
        for key in roundKeys { (x, y) = Self.round(x, y, key: key) }
        return (x, y)
    }

    /// Decrypts the words (x, y).
    package func decrypt(x: UInt32, y: UInt32) -> (x: UInt32, y: UInt32) {
        var (x, y) = (x, y)
        for key in roundKeys.reversed() {
            y ^= x
            y = y >> 3 | y << 29
            x ^= key
            x = x &- y
            x = x << 8 | x >> 24
        }
        return (x, y)
    }

    /// Encrypts the block `x << 32 | y`.
    package func encrypt(block: UInt64) -> UInt64 {
        let (x, y) = encrypt(x: UInt32(truncatingIfNeeded: block >> 32), y: UInt32(truncatingIfNeeded: block))
        return UInt64(x) << 32 | UInt64(y)
    }

    /// Decrypts the block `x << 32 | y`.
    package func decrypt(block: UInt64) -> UInt64 {
        let (x, y) = decrypt(x: UInt32(truncatingIfNeeded: block >> 32), y: UInt32(truncatingIfNeeded: block))
        return UInt64(x) << 32 | UInt64(y)
    }

    /// Speck as a stream cipher (counter mode): the keystream is the encryption of `counter`,
    /// `counter + 1`, … (as blocks), each XORed with the next 8 bytes of `data`, read as a block
    /// in the byte order above. Encrypting and decrypting are the same operation.
    package func applyKeystream(counter: UInt64, to data: some Collection<UInt8>) -> [UInt8] {
        var output = Array(data)
        var block = counter
        var offset = 0
        while offset < output.count {
            let keystream = encrypt(block: block)
            for index in offset..<min(offset + 8, output.count) {
                output[index] ^= UInt8(truncatingIfNeeded: keystream >> ((index - offset) * 8))
            }
            block &+= 1
            offset += 8
        }
        return output
    }
}

extension UInt64 {
    /// The integer whose bytes, least significant first, are `bytes` (at most 8, missing ones 0).
    init(littleEndianBytes bytes: some Collection<UInt8>) {
        var value: UInt64 = 0
        for (index, byte) in bytes.prefix(8).enumerated() { value |= UInt64(byte) << (index * 8) }
        self = value
    }
}
