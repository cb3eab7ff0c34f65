import Foundation
import TestSupport
import XCTest

/// A deliberately small, test-only reading of the synthetic btsnoop captures: just enough to pull
/// ATT PDUs out so the characteristic codecs can be fed the exact bytes a sensor sent. It keeps
/// ACL data only (H4 type 0x02 in datalink 1002; monitor opcodes 4/5 in datalink 2001), joins
/// continuation fragments (PB 0b01) to the open L2CAP frame of the same direction, and keeps
/// CID 0x0004. It is not the project's btsnoop reader (that one lives in Transport) and does no
/// validation beyond what these two files need.
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

    /// Loads a capture from ../shared/vectors, skipping the test when the folder is absent.
    static func load(_ relativePath: String) throws -> SyntheticCapture {
        guard let url = Fixtures.sharedVector(relativePath) else {
            throw XCTSkip("shared vector \(relativePath) is not present beside the repository")
        }
        return try SyntheticCapture(bytes: [UInt8](Data(contentsOf: url)))
    }

    init(bytes: [UInt8]) throws {
        func be32(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        func be64(_ at: Int) -> Int64 { bytes[at..<(at + 8)].reduce(Int64(0)) { $0 << 8 | Int64($1) } }
        guard bytes.count >= 16, Array(bytes[0..<8]) == Array("btsnoop\u{0}".utf8) else {
            throw CaptureScanError("not a btsnoop file")
        }
        let datalink = be32(12)
        guard datalink == 1002 || datalink == 2001 else { throw CaptureScanError("datalink \(datalink)") }
        var pdus: [PDU] = []
        var open: [Bool: (micros: Int64, length: Int, data: [UInt8])] = [:]
        var at = 16
        while at + 24 <= bytes.count {
            let included = be32(at + 4)
            let flags = be32(at + 8)
            let micros = be64(at + 16) - 0x00DC_DDB3_0F2F_8000
            guard at + 24 + included <= bytes.count else { throw CaptureScanError("record at \(at) is cut short") }
            var data = Array(bytes[(at + 24)..<(at + 24 + included)])
            at += 24 + included
            let received: Bool
            if datalink == 1002 {
                guard data.first == 0x02 else { continue }
                data.removeFirst()
                received = flags & 1 == 1
            } else {
                let opcode = flags & 0xFFFF
                guard opcode == 4 || opcode == 5 else { continue }
                received = opcode == 5
            }
            guard data.count >= 4 else { throw CaptureScanError("ACL header cut short") }
            let boundary = (Int(data[1]) >> 4) & 0x3
            let payload = Array(data[4...])
            if boundary == 0b01 {
                guard var frame = open[received] else { continue }
                frame.data += payload
                open[received] = frame
            } else {
                guard payload.count >= 4 else { throw CaptureScanError("L2CAP header cut short") }
                let length = Int(payload[0]) | Int(payload[1]) << 8
                let cid = Int(payload[2]) | Int(payload[3]) << 8
                guard cid == 4 else { continue }
                open[received] = (micros, length, Array(payload[4...]))
            }
            if let frame = open[received], frame.data.count >= frame.length {
                pdus.append(PDU(received: received, unixMicros: frame.micros, bytes: Array(frame.data.prefix(frame.length))))
                open[received] = nil
            }
        }
        self.pdus = pdus
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
