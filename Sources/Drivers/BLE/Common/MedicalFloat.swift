/// An IEEE 11073-20601 SFLOAT (16 bit) or FLOAT (32 bit) number as GATT health characteristics
/// carry it: mantissa × 10^exponent, or one of the reserved special values.
///
/// Layout (IEEE 11073-20601; HL7/phd MderFLOATsandSFLOATs; Wireshark
/// ftype-ieee-11073-float.c): SFLOAT = signed 4-bit exponent (high nibble) and signed 12-bit
/// mantissa; FLOAT = signed 8-bit exponent (high byte) and signed 24-bit mantissa; both two's
/// complement. With exponent 0 the mantissas +max, −max−1, +max−1, −max+1 and −max are NaN, NRes
/// (not at this resolution), +INF, −INF and reserved; those are never readings.
package enum MedicalFloat: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// mantissa × 10^exponent. The representation is kept (1120e−1 and 112e0 stay distinct), as
    /// it carries the device's resolution.
    case finite(mantissa: Int32, exponent: Int8)
    case notANumber
    /// Not at this resolution: the value cannot be represented with the available digits.
    case notAtThisResolution
    case positiveInfinity
    case negativeInfinity
    /// The one reserved special word (SFLOAT 0x0801, FLOAT 0x00800001).
    case reserved

    /// Decodes a 16-bit SFLOAT as it arrives (after little-endian assembly).
    package init(sfloat raw: UInt16) {
        let exponent = Int8(bitPattern: UInt8(truncatingIfNeeded: raw >> 12) << 4) >> 4
        let mantissa = Int32(Int16(bitPattern: (raw & 0x0FFF) << 4) >> 4)
        if exponent == 0, let special = Self.special(mantissa, max: 0x07FF) {
            self = special
        } else {
            self = .finite(mantissa: mantissa, exponent: exponent)
        }
    }

    /// Decodes a 32-bit FLOAT as it arrives (after little-endian assembly).
    package init(float raw: UInt32) {
        let exponent = Int8(bitPattern: UInt8(truncatingIfNeeded: raw >> 24))
        let mantissa = Int32(bitPattern: (raw & 0x00FF_FFFF) << 8) >> 8
        if exponent == 0, let special = Self.special(mantissa, max: 0x7F_FFFF) {
            self = special
        } else {
            self = .finite(mantissa: mantissa, exponent: exponent)
        }
    }

    private static func special(_ mantissa: Int32, max: Int32) -> MedicalFloat? {
        switch mantissa {
        case max: .notANumber
        case -max - 1: .notAtThisResolution
        case max - 1: .positiveInfinity
        case -(max - 1): .negativeInfinity
        case -max: .reserved
        default: nil
        }
    }

    /// The number, or nil for the special values: the double nearest to mantissa × 10^exponent
    /// (read as decimal text, which rounds once), so 1120e−1 is exactly 112.0 and 1e−128 is the
    /// double a literal 1e-128 gives.
    package var value: Double? {
        guard case .finite(let mantissa, let exponent) = self else { return nil }
        return Double("\(mantissa)e\(exponent)")
    }

    /// True for a number, false for NaN, NRes, ±INF and reserved.
    package var isFinite: Bool { value != nil }

    package var description: String {
        switch self {
        case .finite(let mantissa, let exponent): exponent == 0 ? "\(mantissa)" : "\(mantissa)e\(exponent)"
        case .notANumber: "NaN"
        case .notAtThisResolution: "NRes"
        case .positiveInfinity: "+INF"
        case .negativeInfinity: "-INF"
        case .reserved: "reserved"
        }
    }
}
