/// One message of Abbott's shared HID protocol, as carried in a 64-byte report: a type byte, a
/// length byte, then that many significant bytes. Whatever follows the significant bytes is
/// padding or stale bytes from an earlier reply, and is never read.
public struct FreeStyleMessage: Sendable, Equatable {
    public var type: UInt8
    public var payload: [UInt8]

    package static let reportSize = 64
    /// The most significant bytes a report can carry after its two header bytes.
    package static let maximumPayload = 62

    /// Message types (host→device requests and device→host replies).
    package enum Kind {
        /// Init step; answered by `initReply`.
        package static let hello: UInt8 = 0x04
        package static let helloReply: UInt8 = 0x34
        /// Serial number query; answered by `serialReply` (NUL-terminated text).
        package static let serial: UInt8 = 0x05
        package static let serialReply: UInt8 = 0x06
        /// Software version query; answered by `versionReply` (NUL-terminated text).
        package static let version: UInt8 = 0x15
        package static let versionReply: UInt8 = 0x35
        /// Starts the session; answered by `readyReply` `71 01 01`. Text commands work afterwards.
        package static let ready: UInt8 = 0x01
        package static let readyReply: UInt8 = 0x71
        /// A text command (and every text reply).
        package static let text: UInt8 = 0x60
        /// The text command type Abbott's Libre software uses; answered with `text` replies.
        package static let textAlternative: UInt8 = 0x21
        /// Keep-alive the reader interleaves with replies, to be skipped.
        package static let keepAlive: UInt8 = 0x22
        /// The reader did not know the message type it was sent (`30 01 85`).
        package static let unknownMessage: UInt8 = 0x30
        /// An encrypted reader (Libre 2 / 3) saying its encryption is not set up (`33 01 15`, `33 01 14`).
        package static let encryption: UInt8 = 0x33
        /// The binary (AAP/ATP) protocol: host requests, device responses, and the ACKs of both.
        package static let binaryRequest: UInt8 = 0x0A
        package static let binaryResponse: UInt8 = 0x0B
        package static let binaryDeviceAck: UInt8 = 0x0C
        package static let binaryHostAck: UInt8 = 0x0D
    }

    package init(type: UInt8, payload: [UInt8] = []) {
        self.type = type
        self.payload = payload
    }

    /// The 64-byte report carrying the message, zero-padded (the host never sends stale bytes).
    /// The payload must fit one report.
    package var report: [UInt8] {
        precondition(payload.count <= Self.maximumPayload, "a FreeStyle message carries at most 62 bytes")
        return [type, UInt8(payload.count)] + payload + [UInt8](repeating: 0, count: Self.reportSize - 2 - payload.count)
    }

    /// The message in a report, honouring its length byte. `context` says where the report came
    /// from, for the error.
    public static func decode(_ report: [UInt8], location: WireLocation) throws(FreeStyleError) -> FreeStyleMessage {
        guard report.count >= 2 else {
            throw .badReport(location: location, reason: "\(report.count) byte\(report.count == 1 ? "" : "s"), shorter than the 2-byte header")
        }
        let length = Int(report[1])
        guard length <= maximumPayload else {
            throw .badReport(location: location, reason: "length byte \(length) is more than the 62 bytes a report can carry")
        }
        guard 2 + length <= report.count else {
            throw .badReport(
                location: location, reason: "length byte \(length) needs \(2 + length) bytes but the report has \(report.count) (truncated)")
        }
        return FreeStyleMessage(type: report[0], payload: Array(report[2..<(2 + length)]))
    }

    package var isKeepAlive: Bool { type == Kind.keepAlive }

    /// The payload as text up to its first NUL (serial number, software version).
    var nulTerminatedText: String {
        String(decoding: payload.prefix { $0 != 0 }, as: UTF8.self)
    }
}
