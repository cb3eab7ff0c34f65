/// CMAC (NIST SP 800-38B, the OMAC1 construction) on Speck 64/128: a 64-bit tag, subkeys
/// doubled in GF(2^64) with the constant 0x1B, the last block padded with `80 00 …` when it is
/// not full. This is the MAC of the FreeStyle Libre 2 reader's session (freestyle-hid,
/// `freestyle_hid/_freestyle_encryption.py`).
///
/// Blocks are read from the message in Speck's byte order (`Speck64_128`): 8 bytes are the
/// 64-bit integer least significant byte first. The doubling works on the block's bytes as a
/// big-endian number, as CMAC defines it.
public struct SpeckCMAC: Sendable {
    package let cipher: Speck64_128
    private let subkey1: UInt64
    private let subkey2: UInt64

    public init(key: SpeckKey) {
        cipher = Speck64_128(key: key)
        func double(_ value: UInt64) -> UInt64 { value << 1 ^ (value >> 63 == 0 ? 0 : 0x1B) }
        // L = E(0) in bytes, read big-endian for the doubling, then back to block order.
        let l = cipher.encrypt(block: 0).byteSwapped
        let k1 = double(l)
        subkey1 = k1.byteSwapped
        subkey2 = double(k1).byteSwapped
    }

    /// The 64-bit tag of `message`, as a block (its bytes are `tagBytes`).
    package func tag(_ message: some Collection<UInt8>) -> UInt64 {
        let bytes = Array(message)
        var chain: UInt64 = 0
        var offset = 0
        // Every block but the last goes in as it is.
        while bytes.count - offset > 8 {
            chain = cipher.encrypt(block: chain ^ UInt64(littleEndianBytes: bytes[offset..<(offset + 8)]))
            offset += 8
        }
        let last = bytes[offset...]
        let block: UInt64
        if last.count == 8 {
            block = UInt64(littleEndianBytes: last) ^ subkey1
        } else {
            block = UInt64(littleEndianBytes: Array(last) + [0x80]) ^ subkey2
        }
        return cipher.encrypt(block: chain ^ block)
    }

    /// The tag as the 8 bytes sent on the wire.
    public func tagBytes(_ message: some Collection<UInt8>) -> [UInt8] {
        tag(message).littleEndianBytes
    }

    /// The key derivation of the Libre 2 session (a counter-mode KDF with this CMAC as its PRF,
    /// NIST SP 800-108 style): the new key's low 64 bits are the tag of
    /// `01 ‖ label ‖ 00 ‖ context ‖ 80 00`, its high 64 bits the tag of the same with `02` first.
    /// `80 00` is the output length, 128 bits, as 16 bits little-endian.
    public func derive(label: [UInt8], context: [UInt8]) -> SpeckKey {
        let input = label + [0] + context + [0x80, 0x00]
        return SpeckKey(high: tag([0x02] + input), low: tag([0x01] + input))
    }
}
