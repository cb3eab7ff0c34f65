import CaptureBluetooth
import Foundation
import TestSupport
import XCTest

/// The ATT PDUs of a synthetic capture's one LE connection, as the project's btsnoop reader
/// (`LECapture`: H4 and monitor records, ACL reassembly, CID 0x0004) delivers them, so the
/// characteristic codecs can be fed the exact bytes the sensor sent.
struct SyntheticCapture {
    struct PDU {
        var received: Bool
        /// Microseconds since 1970 (btsnoop time − 0x00DCDDB30F2F8000).
        var unixMicros: Int64
        var bytes: [UInt8]

        var opcode: UInt8 { bytes[0] }
        var handle: UInt16 { UInt16(bytes[1]) | UInt16(bytes[2]) << 8 }
        var value: [UInt8] { Array(bytes[3...]) }
    }

    static let android = "ble/synthetic/synthetic-hrs-cgms-android-h4.btsnoop"
    static let btmon = "ble/synthetic/synthetic-hrs-cgms-btmon-monitor.btsnoop"

    let pdus: [PDU]

    /// Reads a capture from `fixtures/` (the synthetic set is project data, copied there).
    static func load(_ relativePath: String) throws -> SyntheticCapture {
        let capture = try LECapture.read(contentsOf: Fixtures.url(relativePath))
        guard capture.attConnections.count == 1, let link = capture.attConnections.first else {
            throw CaptureScanError("\(relativePath) holds \(capture.attConnections.count) connections carrying ATT, not one")
        }
        return SyntheticCapture(
            pdus: link.att.map {
                PDU(received: $0.direction == .received, unixMicros: $0.timestamp.unixMicroseconds, bytes: $0.bytes)
            })
    }

    /// Values of notifications (0x1B) or indications (0x1D) received on `handle`, with their times.
    func received(_ opcode: UInt8, on handle: UInt16) -> [PDU] {
        pdus.filter { $0.received && $0.opcode == opcode && $0.bytes.count >= 3 && $0.handle == handle }
    }

    /// The value of the Read Response that answered the Read Request for `handle`.
    func readResponse(for handle: UInt16) -> [UInt8]? {
        guard let request = pdus.firstIndex(where: { !$0.received && $0.bytes == [0x0A, UInt8(handle & 0xFF), UInt8(handle >> 8)] }),
            let response = pdus[(request + 1)...].first(where: \.received), response.opcode == 0x0B
        else { return nil }
        return Array(response.bytes.dropFirst())
    }

    /// The values written with Write Requests (0x12) to `handle`, in order.
    func writes(to handle: UInt16) -> [[UInt8]] {
        pdus.filter { !$0.received && $0.opcode == 0x12 && $0.bytes.count >= 3 && $0.handle == handle }.map(\.value)
    }
}

struct CaptureScanError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `2024-01-15T08:00:06.749Z`-style text for microseconds since 1970.
func isoMillis(_ micros: Int64) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: Date(timeIntervalSince1970: Double(micros) / 1_000_000))
}
