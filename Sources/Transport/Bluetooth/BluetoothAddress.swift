
/// A 48-bit Bluetooth device address.
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The six bytes, most significant first, in the order `C0:11:22:33:44:55` is written.
    public let bytes: [UInt8]

    /// An address from its six bytes as they travel in HCI packets and `bdaddr_t` (least
    /// significant first); nil unless there are exactly six.
    public init?(littleEndian: some Collection<UInt8>) {
        guard littleEndian.count == 6 else { return nil }
        bytes = littleEndian.reversed()
    }

    /// An address from its text `C0:11:22:33:44:55` (either case, `-` separators accepted).
    public init?(_ text: String) {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "-" })
        guard parts.count == 6 else { return nil }
        var parsed: [UInt8] = []
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            parsed.append(byte)
        }
        bytes = parsed
    }

    /// The bytes least significant first, as HCI and `bdaddr_t` hold them.
    public var littleEndianBytes: [UInt8] { bytes.reversed() }

    /// `C0:11:22:33:44:55`.
    public var description: String { Hex.encode(bytes, separator: ":") }

    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}

/// The kind of a Bluetooth LE address, as HCI LE events report it.
public enum LEAddressType: UInt8, Sendable, Equatable, CustomStringConvertible {
    case `public` = 0
    case random = 1
    /// A public identity address the controller resolved from a resolvable private address.
    case publicIdentity = 2
    /// A random static identity address the controller resolved from a resolvable private address.
    case randomIdentity = 3

    /// Whether a connection to this peer must name a random address (`BDADDR_LE_RANDOM`).
    public var isRandom: Bool { self == .random || self == .randomIdentity }

    public var description: String {
        switch self {
        case .public: "public"
        case .random: "random"
        case .publicIdentity: "public identity"
        case .randomIdentity: "random identity"
        }
    }
}
