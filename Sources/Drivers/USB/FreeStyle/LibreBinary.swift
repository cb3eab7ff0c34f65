import Checksums

/// The binary protocol Abbott's own software uses with a FreeStyle Libre (HID message types
/// 0x0A / 0x0B): ATP frames (sequence numbers and a CRC32) carrying AAP packets (a length, an
/// opcode, data), and the database records those carry, each with a CRC16.
///
/// Decoding only: the driver reads Libres with the text protocol. These types read the packets
/// and records of the binary protocol as captures and Tidepool's tests hold them.
package enum LibreBinary {
    /// AAP opcodes.
    package static let getDatabase: UInt8 = 0x31
    package static let getConfigData: UInt8 = 0x51

    /// The ATP CRC32 (STM32 hardware CRC): polynomial 0x04C11DB7, initial value 0xFFFFFFFF, the
    /// input zero-padded to whole 32-bit words read little-endian and fed most significant bit
    /// first, no reflection, no final XOR.
    package static func atpCRC32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        var word: UInt32 = 0
        var filled = 0
        func feed(_ word: UInt32) {
            crc ^= word
            for _ in 0..<32 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        for byte in bytes {
            word |= UInt32(byte) << (8 * filled)
            filled += 1
            if filled == 4 {
                feed(word)
                (word, filled) = (0, 0)
            }
        }
        if filled > 0 { feed(word) }
        return crc
    }

    /// The CRC16 of a database record: polynomial 0x1021, initial value 0xFFFF, input bytes
    /// reflected, result not reflected, no final XOR (a variant the CRC catalogue does not list).
    package static let recordCRC = CRC16(
        name: "Libre record CRC-16", polynomial: 0x1021, initialValue: 0xFFFF, reflectsInput: true, reflectsOutput: false, finalXOR: 0)

    /// The CRC16 of a database record's bytes (``recordCRC``).
    package static func recordCRC16<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
        recordCRC.checksum(bytes)
    }
}

/// An ATP frame: the payload of a binary-protocol HID message.
public struct LibreATPFrame: Sendable, Equatable {
    /// The next sequence number expected from the peer, and this frame's own.
    package var sequenceReceive: UInt8
    package var sequenceTransmit: UInt8
    /// The AAP bytes the frame carries.
    package var aap: [UInt8]

    package init(sequenceReceive: UInt8, sequenceTransmit: UInt8, aap: [UInt8]) {
        self.sequenceReceive = sequenceReceive
        self.sequenceTransmit = sequenceTransmit
        self.aap = aap
    }

    /// `seqRx, seqTx, CRC32 (little-endian) of the AAP bytes, AAP bytes`.
    package var encoded: [UInt8] {
        [sequenceReceive, sequenceTransmit] + LibreBinary.atpCRC32(aap).littleEndianBytes + aap
    }

    /// Reads a frame and checks its CRC32.
    public static func decode(_ bytes: [UInt8], location: WireLocation) throws(FreeStyleError) -> LibreATPFrame {
        guard bytes.count >= 6 else {
            throw .malformedBinary(location: location, reason: "\(bytes.count) bytes, shorter than the 6-byte ATP header")
        }
        let aap = Array(bytes[6...])
        let stated = bytes.u32le(at: 2)
        let computed = LibreBinary.atpCRC32(aap)
        guard stated == computed else {
            throw .binaryChecksumMismatch(what: "ATP frame \(location)", stated: stated, computed: computed)
        }
        return LibreATPFrame(sequenceReceive: bytes[0], sequenceTransmit: bytes[1], aap: aap)
    }
}

/// An AAP packet: 0–3 length bytes (bit 7 set, 7 bits each, least significant first), an opcode
/// (bit 7 clear), then `length` data bytes.
public struct LibreAAPPacket: Sendable, Equatable {
    package var opcode: UInt8
    package var data: [UInt8]

    package init(opcode: UInt8, data: [UInt8]) {
        self.opcode = opcode
        self.data = data
    }

    package var encoded: [UInt8] {
        var length: [UInt8] = []
        var rest = data.count
        while rest > 0 {
            length.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        return length + [opcode] + data
    }

    /// The packets in `bytes`, in order; a packet running past the end is an error.
    public static func decodeAll(_ bytes: [UInt8], location: WireLocation) throws(FreeStyleError) -> [LibreAAPPacket] {
        var packets: [LibreAAPPacket] = []
        var index = 0
        while index < bytes.count {
            var length = 0
            var shift = 0
            while index < bytes.count, bytes[index] & 0x80 != 0 {
                guard shift < 21 else { throw .malformedBinary(location: location, reason: "more than 3 length bytes at byte \(index)") }
                length |= Int(bytes[index] & 0x7F) << shift
                shift += 7
                index += 1
            }
            guard index < bytes.count else { throw .malformedBinary(location: location, reason: "the packet ends before its opcode") }
            let opcode = bytes[index]
            index += 1
            guard index + length <= bytes.count else {
                throw .malformedBinary(
                    location: location, reason: "opcode 0x\(String(opcode, radix: 16)) claims \(length) data bytes but \(bytes.count - index) remain")
            }
            packets.append(LibreAAPPacket(opcode: opcode, data: Array(bytes[index..<(index + length)])))
            index += length
        }
        return packets
    }
}

/// The Libre's factory configuration (configuration table 1).
package struct LibreFactoryConfiguration: Sendable, Equatable {
    /// Whether the reader displays mg/dL (its values are mg/dL either way).
    package var displaysMilligrams: Bool
    /// Unix seconds of the reader's time zero: a record's local wall clock is
    /// `timeConversion + readerTime + userTimeOffset`.
    package var timeConversion: UInt32

    /// Reads the data of a GET_CFG_DATA reply for table 1 (table id first).
    package init(configData data: [UInt8]) throws(FreeStyleError) {
        guard data.first == 1 else { throw .malformedBinary(location: "in the factory configuration", reason: "it is not configuration table 1") }
        guard data.count >= 1 + 160 else {
            throw .malformedBinary(
                location: "in the factory configuration", reason: "\(data.count) bytes, too short for the time conversion at offset 156")
        }
        displaysMilligrams = data[1 + 133] == 1
        timeConversion = data.u32le(at: 1 + 156)
    }
}

/// A record of a Libre database table, CRC16 verified.
package struct LibreDatabaseRecord: Sendable, Equatable {
    package var table: UInt8
    /// The low 16 bits of the record number.
    package var number: UInt16
    package var type: UInt8
    package var timeValid: Bool
    package var readerTime: UInt32
    package var userTimeOffset: Int32
    /// The bytes between the 12-byte header and the CRC.
    package var body: [UInt8]
    package var crc: UInt16

    /// Reads the data of a GET_DATABASE reply holding one record (table id first).
    package init(databaseData data: [UInt8]) throws(FreeStyleError) {
        guard data.count >= 1 + 12 + 2 else {
            throw .malformedBinary(location: "in a database record", reason: "\(data.count) bytes, too short for a record")
        }
        table = data[0]
        number = data.u16le(at: 1)
        type = data[3]
        timeValid = data[4] & 0x80 != 0
        readerTime = data.u32le(at: 5)
        userTimeOffset = data.i32le(at: 9)
        body = Array(data[13..<(data.count - 2)])
        crc = data.u16le(at: data.count - 2)
        let computed = LibreBinary.recordCRC16(data[1..<(data.count - 2)])
        guard computed == crc else {
            throw .binaryChecksumMismatch(what: "table \(table) record \(number)", stated: UInt32(crc), computed: UInt32(computed))
        }
    }

    /// The local wall clock of the record, Unix seconds read without a zone.
    package func wallClock(_ configuration: LibreFactoryConfiguration) -> Int64 {
        Int64(configuration.timeConversion) + Int64(readerTime) + Int64(userTimeOffset)
    }

    /// A historical (type 12, 15-minute) record's fields: glucose mg/dL (low 10 bits of the
    /// first word), the word's flag bits, the sensor life in minutes and the data-quality flags
    /// (not 0: discard). Nil for other record types or a body too short.
    package var historical: (glucose: Int, flagBits: UInt16, lifeMinutes: Int, qualityFlags: UInt16)? {
        guard type == 12, body.count >= 6 else { return nil }
        let word = body.u16le(at: 0)
        return (Int(word & 0x3FF), word & ~0x3FF, Int(body.u16le(at: 2)), body.u16le(at: 4))
    }
}
