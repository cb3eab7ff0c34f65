/// A 48-bit Bluetooth device address.
package struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The six bytes, most significant first, in the order `C0:11:22:33:44:55` is written.
    package let bytes: [UInt8]

    /// An address from its six bytes as they travel in HCI packets and `bdaddr_t` (least
    /// significant first); nil unless there are exactly six.
    package init?(littleEndian: some Collection<UInt8>) {
        guard littleEndian.count == 6 else { return nil }
        bytes = littleEndian.reversed()
    }

    /// An address from its text `C0:11:22:33:44:55` (either case, `-` separators accepted).
    package init?(_ text: String) {
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
    package var littleEndianBytes: [UInt8] { bytes.reversed() }

    /// `C0:11:22:33:44:55`.
    package var description: String { Hex.encode(bytes, separator: ":") }

    package static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}

/// The kind of a Bluetooth LE address, as HCI LE events report it.
package enum LEAddressType: UInt8, Sendable, Equatable, CustomStringConvertible {
    case `public` = 0
    case random = 1
    /// A public identity address the controller resolved from a resolvable private address.
    case publicIdentity = 2
    /// A random static identity address the controller resolved from a resolvable private address.
    case randomIdentity = 3

    /// Whether a connection to this peer must name a random address (`BDADDR_LE_RANDOM`).
    package var isRandom: Bool { self == .random || self == .randomIdentity }

    package var description: String {
        switch self {
        case .public: "public"
        case .random: "random"
        case .publicIdentity: "public identity"
        case .randomIdentity: "random identity"
        }
    }
}
