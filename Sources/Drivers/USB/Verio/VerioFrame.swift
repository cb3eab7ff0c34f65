import Checksums
import Transport

/// LifeScan's binary frame as the Verio puts it in a 512-byte block: STX (0x02), a 16-bit
/// little-endian length of the whole frame, the message (the command prefix first), ETX (0x03)
/// and the CRC-16/CCITT-FALSE of everything before it, little-endian. The rest of the block is
/// padding. (glucometer-protocols `src/lifescan/shared-binary-protocol.md` and
/// `onetouch-verio-2015.md`; Tidepool uploader `lib/drivers/onetouch/oneTouchVerio.js` reads
/// the length as 16 bits.)
public enum VerioFrame {
    package static let stx: UInt8 = 0x02
    package static let etx: UInt8 = 0x03
    /// The command prefix the host sends; the meter echoes it (glucometer-protocols suggests it:
    /// READ PARAMETER always answers with it).
    package static let prefix: UInt8 = 0x03
    /// The reply status byte of success.
    package static let success: UInt8 = 0x06
    /// STX, the length, ETX and the CRC.
    package static let overhead = 6

    /// The frame of `message`.
    public static func encode(_ message: [UInt8]) -> [UInt8] {
        let length = message.count + overhead
        var frame = [stx, UInt8(length & 0xFF), UInt8(length >> 8)] + message + [etx]
        let crc = CRC16.ibm3740.checksum(frame)
        frame += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        return frame
    }

    /// `encode(message)` padded with zeros to a block.
    package static func block(_ message: [UInt8]) -> [UInt8] {
        let frame = encode(message)
        return frame + [UInt8](repeating: 0, count: max(0, 512 - frame.count))
    }

    /// The message of the frame at the start of `block`; errors name `reply`.
    public static func decode(_ block: [UInt8], reply: String) throws(VerioError) -> [UInt8] {
        guard block.count >= overhead else {
            throw .malformedFrame(reply: reply, offset: block.count, reason: "\(block.count) bytes, shorter than an empty frame")
        }
        guard block[0] == stx else {
            throw .malformedFrame(reply: reply, offset: 0, reason: "starts with \(Hex.literal(block[0], digits: 2)), not STX (0x02)")
        }
        let length = Int(block[1]) | Int(block[2]) << 8
        guard length >= overhead, length <= block.count else {
            throw .malformedFrame(reply: reply, offset: 1, reason: "length \(length) does not fit the \(block.count)-byte block")
        }
        guard block[length - 3] == etx else {
            throw .malformedFrame(
                reply: reply, offset: length - 3, reason: "\(Hex.literal(block[length - 3], digits: 2)) where the length puts ETX (0x03)")
        }
        let sent = UInt16(block[length - 2]) | UInt16(block[length - 1]) << 8
        let computed = CRC16.ibm3740.checksum(block[0..<length - 2])
        guard sent == computed else { throw .badCRC(reply: reply, sent: sent, computed: computed) }
        return Array(block[3..<length - 3])
    }

    /// The payload of a reply message to `command`: after the prefix and the success status.
    package static func payload(_ message: [UInt8], command: String, reply: String) throws(VerioError) -> ArraySlice<UInt8> {
        guard message.count >= 2 else {
            throw .malformedFrame(reply: reply, offset: 3 + message.count, reason: "a message of \(message.count) bytes has no status")
        }
        guard message[1] == success else { throw .commandFailed(command: command, status: message[1]) }
        return message[2...]
    }
}
