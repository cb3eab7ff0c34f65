import Foundation

/// Numbers and durations as glucobridge shows them to a person, in every output.
public enum DisplayText {
    /// `45`, `60.5`: at most `decimals` decimals, no trailing zeros.
    public static func number(_ value: Double, decimals: Int = 1) -> String {
        var text = String(format: "%.\(decimals)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
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
    /// A glucose value given in mg/dL, in `unit` as a person writes it: whole mg/dL (or
    /// `decimals` of them), mmol/L to one decimal (`10.0`).
    public static func glucose(_ mgdl: Double, unit: GlucoseUnit, decimals: Int = 0) -> String {
        switch unit {
        case .milligramsPerDeciliter: number(mgdl, decimals: decimals)
        case .millimolesPerLiter: String(format: "%.\(max(1, decimals))f", mgdl / GlucoseUnit.mgdlPerMmol)
        }
    }
}

extension DisplayText {
    /// `72.4 %`: a share in percent to one decimal.
    public static func percent(_ value: Double) -> String { String(format: "%.1f %%", (value * 10).rounded() / 10) }
}
