/// A Bluetooth UUID. 16-bit UUIDs are shorthand for `0000xxxx-0000-1000-8000-00805F9B34FB`
/// [BlueZ lib/bluetooth/uuid.h]; both spellings of one UUID compare equal.
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible {
    /// The 16 bytes in the order the UUID is written (most significant first).
    package let bytes: [UInt8]

    /// The Bluetooth base UUID with the 16-bit slot zeroed.
    static let base: [UInt8] = [0, 0, 0, 0, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB]

    /// A 16-bit SIG-assigned UUID such as 0x180D.
    package init(_ short: UInt16) {
        var full = Self.base
        full[2] = UInt8(short >> 8)
        full[3] = UInt8(short & 0xFF)
        self.init(written: full)
    }

    private init(written: [UInt8]) {
        bytes = written
    }

    /// A UUID as ATT and advertising data carry it: 2 or 16 bytes, least significant first
    /// [BlueZ src/shared/gatt-helpers.c `convert_uuid_le`]; nil for any other length.
    package init?(littleEndian: some Collection<UInt8>) {
        switch littleEndian.count {
        case 2:
            let value = Array(littleEndian)
            self.init(UInt16(value[0]) | UInt16(value[1]) << 8)
        case 4:
            var full = Self.base
            full.replaceSubrange(0..<4, with: littleEndian.reversed())
            self.init(written: full)
        case 16:
            self.init(written: littleEndian.reversed())
        default:
            return nil
        }
    }

    /// A UUID from `180D`, `0x180D` or `0000180d-0000-1000-8000-00805f9b34fb`.
    package init?(_ text: String) {
        var hex = text.filter { $0 != "-" }
        if hex.hasPrefix("0x") || hex.hasPrefix("0X") { hex.removeFirst(2) }
        if hex.count == 4, let short = UInt16(hex, radix: 16) {
            self.init(short)
            return
        }
        guard hex.count == 32, let decoded = Hex.decode(Substring(hex)) else { return nil }
        self.init(written: decoded)
    }

    /// The 16-bit value when this UUID is on the Bluetooth base, else nil.
    package var short: UInt16? {
        guard bytes[0] == 0, bytes[1] == 0, bytes[4...] == Self.base[4...] else { return nil }
        return UInt16(bytes[2]) << 8 | UInt16(bytes[3])
    }

    /// The bytes as ATT sends them: 2 for a 16-bit UUID, else 16, least significant first.
    package var littleEndianBytes: [UInt8] {
        if let short { return [UInt8(short & 0xFF), UInt8(short >> 8)] }
        return bytes.reversed()
    }

    /// `0x180D` for a 16-bit UUID, else the full lowercase form with dashes.
    public var description: String {
        if let short { return "0x" + Hex.encode([UInt8(short >> 8), UInt8(short & 0xFF)], separator: "") }
        let hex = Hex.encode(bytes, separator: "").lowercased()
        let cuts = [8, 12, 16, 20]
        var out = ""
        for (index, character) in hex.enumerated() {
            if cuts.contains(index) { out.append("-") }
            out.append(character)
        }
        return out
    }
}
