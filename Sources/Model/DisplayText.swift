import Foundation

/// Numbers and durations as glucobridge shows them to a person, in every output.
public enum DisplayText {
    /// `45`, `60.5`: at most `decimals` decimals, no trailing zeros, a half rounded away from
    /// zero as a person rounds it (204.5 is `205`, 0.25 to one decimal `0.3`). The rounding is
    /// done on the value's decimal digits (to a millionth, as ``GlucoseValueText/snapped(_:)``
    /// reads them), not on its binary approximation, where `%.0f` would round 204.5 half to even.
    public static func number(_ value: Double, decimals: Int = 1) -> String {
        guard value.isFinite, value.magnitude < 1e12, (0...6).contains(decimals) else {
            return String(format: "%.\(max(0, decimals))f", value)
        }
        var step: Int64 = 1
        for _ in decimals..<6 { step *= 10 }
        let millionths = Int64((value.magnitude * 1_000_000).rounded())
        let rounded = (millionths + step / 2) / step
        guard rounded != 0 else { return "0" }
        var digits = Array(String(rounded).utf8)
        if decimals > 0 {
            if digits.count <= decimals { digits.insert(contentsOf: repeatElement(UInt8(ascii: "0"), count: decimals + 1 - digits.count), at: 0) }
            digits.insert(UInt8(ascii: "."), at: digits.count - decimals)
            while digits.last == UInt8(ascii: "0") { digits.removeLast() }
            if digits.last == UInt8(ascii: ".") { digits.removeLast() }
        }
        return (value < 0 ? "-" : "") + String(decoding: digits, as: UTF8.self)
    }

    /// `2 h 30 min`, `45 min`, `30 s`.
    public static func duration(_ seconds: TimeInterval) -> String {
        let total = Int(seconds.rounded())
        if total < 60 { return "\(total) s" }
        let minutes = (total + 30) / 60
        if minutes < 60 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }
}

extension DisplayText {
    /// A glucose value given in mg/dL, in `unit` as a person reads it: whole mg/dL (or `decimals`
    /// of them), mmol/L to one decimal (`10.0`), but never rounded across an edge: when the
    /// rounded text would read as another range (by the edges of `edges` in the unit shown; for
    /// mmol/L 3.0, 3.9, 10.0, 13.9 as meters show them) than the value's own tag, it keeps up to
    /// two more decimals to stay in its range (69.6 mg/dL is `69.6`, not `70`; in mmol/L `3.86`,
    /// not `3.9`). Where mg/dL and mmol/L edges disagree (180.1 mg/dL is above 180 but 9.997
    /// mmol/L, not above 10.0) no decimal helps: the rounded text is shown with the value's tag
    /// beside it, `10.0 (hyper-l1)`, so that it is not read as in range.
    public static func glucose(_ mgdl: Double, unit: GlucoseUnit, decimals: Int = 0, edges: GlucoseThresholds = .consensus) -> String {
        let (text, tag) = glucoseText(mgdl, unit: unit, decimals: decimals, edges: edges)
        return tag.map { "\(text) (\($0.rawValue))" } ?? text
    }

    /// ``glucose(_:unit:decimals:edges:)`` in parts: the text, and the value's tag when the text
    /// alone would read as another range (for a line that shows the tag anyway).
    public static func glucoseText(_ mgdl: Double, unit: GlucoseUnit, decimals: Int = 0, edges: GlucoseThresholds = .consensus)
        -> (text: String, tag: GlucoseTag?)
    {
        let base = unit == .milligramsPerDeciliter ? max(0, decimals) : max(1, decimals)
        func text(_ places: Int) -> String {
            switch unit {
            case .milligramsPerDeciliter: number(mgdl, decimals: places)
            case .millimolesPerLiter: String(format: "%.\(places)f", mgdl / GlucoseUnit.mgdlPerMmol)
            }
        }
        let tag = edges.tag(mgdl: mgdl)
        for places in base...(base + 2) {
            let shown = text(places)
            if let value = Double(shown), edges.tag(value, unit: unit) == tag { return (shown, nil) }
        }
        return (text(base), tag)
    }
}

/// Glucose values written exactly as stored, for exports.
public enum GlucoseValueText {
    /// `value` without the binary noise past six decimals (see ``GlucoseThresholds/tag(mgdl:)``).
    public static func snapped(_ value: Double) -> Double { (value * 1_000_000).rounded() / 1_000_000 }

    /// `100`, `99.7`, `204.5`: whole stays whole, a decimal keeps every digit the device sent.
    public static func exact(_ value: Double) -> String {
        let snapped = snapped(value)
        if let whole = Int(exactly: snapped) { return String(whole) }
        return "\(snapped)"
    }
}

extension DisplayText {
    /// `72.4 %`: a share in percent to one decimal.
    public static func percent(_ value: Double) -> String { String(format: "%.1f %%", (value * 10).rounded() / 10) }
}
