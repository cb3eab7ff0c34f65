import Drivers
import Foundation
import Transport

/// The Contour conversation transcript in `fixtures/contour/` (see its PROVENANCE.md): real
/// frames and records, cut into HID reports, with the host's ACKs between them.
package enum ContourDemo {
    /// The transcript text from the fixture folder `contour`.
    package static func transcript(fixtures folder: URL) throws -> String {
        let header = [UInt8](try Data(contentsOf: folder.appendingPathComponent("glucometerutils/header-reply.bin")))
        let record = try String(contentsOf: folder.appendingPathComponent("glucometerutils/result-record.txt"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let tidepoolFrame = [UInt8](try Data(contentsOf: folder.appendingPathComponent("tidepool/result-frame-mgdl.bin")))
        let meterMessages: [[UInt8]] = [
            header,
            ASTMFrame(number: 2, text: Array((record + "\r").utf8), isFinal: false).encoded(),
            tidepoolFrame,
            ASTMFrame(number: 6, text: Array("L|1||N\r".utf8), isFinal: true).encoded(),
            [ASTMControl.eot.rawValue],
        ]
        let ack = ContourReport.reports(carrying: [ASTMControl.ack.rawValue])[0]
        var lines = ["# Contour USB HID conversation: see PROVENANCE.md. One 64-byte report per line."]
        for (i, message) in meterMessages.enumerated() {
            lines += ContourReport.reports(carrying: message).map { "in," + Hex.encode($0) }
            if i < meterMessages.count - 1 { lines.append("out," + Hex.encode(ack)) }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
