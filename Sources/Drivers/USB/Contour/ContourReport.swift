/// The HID report wrapping of Contour meters: 64-byte reports of `"ABC"`, a length byte (at most
/// 60), then that many payload bytes and padding. A payload longer than one report arrives in
/// 60-byte pieces; a report shorter than that ends it.
package enum ContourReport {
    package static let size = 64
    package static let maximumPayload = 60

    /// The payload bytes of one report. The three header letters are not checked: Tidepool sends
    /// zeros there and meters accept it, so meters may answer the same way.
    package static func payload(of report: [UInt8], location: WireLocation) throws(ContourError) -> ArraySlice<UInt8> {
        guard report.count >= 4 else {
            throw .badReport(location: location, reason: "\(report.count) bytes, shorter than the 4-byte header")
        }
        let length = Int(report[3])
        guard length <= maximumPayload, 4 + length <= report.count else {
            throw .badReport(location: location, reason: "length byte \(length) does not fit a report of \(report.count) bytes")
        }
        return report[4..<(4 + length)]
    }

    /// The reports that carry `payload` from the host.
    package static func reports(carrying payload: [UInt8]) -> [[UInt8]] {
        var reports: [[UInt8]] = []
        var offset = 0
        repeat {
            let chunk = payload[offset..<min(payload.count, offset + maximumPayload)]
            var report: [UInt8] = Array("ABC".utf8) + [UInt8(chunk.count)] + chunk
            report += [UInt8](repeating: 0, count: size - report.count)
            reports.append(report)
            offset += chunk.count
        } while offset < payload.count
        return reports
    }
}
