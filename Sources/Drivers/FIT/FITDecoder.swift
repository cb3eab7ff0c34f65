import Checksums
import Foundation

/// Decodes FIT files, after the FIT protocol document (developer.garmin.com/fit/protocol/):
///
/// - a 12- or 14-byte header: its size, protocol and profile versions, the length of the
///   records, `.FIT` at bytes 8–11 and, in 14 bytes, a CRC of the first 12 (0: not computed);
/// - records, each after a one-byte record header: a definition message (bit 6) gives a local
///   message type (bits 0–3) a global message number, a byte order and its fields (number, size,
///   base type), and with bit 5 its developer fields; a data message (bit 6 clear) holds the
///   fields of the last definition of its local type; a compressed-timestamp header (bit 7)
///   carries a local type (bits 5–6) and the low five bits of the time (bits 0–4), counted on
///   from the last timestamp;
/// - the file CRC after the records, over the header and the records;
/// - further files chained after the CRC, each with its own header.
///
/// Developer fields are skipped. A cut file keeps every whole message and says what was cut.
/// Public for the fuzz targets (Fuzz/), like the other parsers of outside bytes.
public enum FITDecoder {
    /// Seconds from 1970-01-01 to FIT's epoch, 1989-12-31T00:00:00Z.
    package static let epochOffset: Int64 = 631_065_600

    /// The instant of FIT seconds `seconds`.
    package static func date(_ seconds: UInt32) -> Date {
        Date(timeIntervalSince1970: TimeInterval(Int64(seconds) + epochOffset))
    }

    /// Whether `bytes` start like a FIT file: a header size of at least 12 and `.FIT` at 8–11.
    package static func isFIT<C: Collection>(prefix bytes: C) -> Bool where C.Element == UInt8, C.Index == Int {
        bytes.count >= 12 && bytes[bytes.startIndex] >= 12 && bytes[bytes.startIndex + 8] == 0x2E && bytes[bytes.startIndex + 9] == 0x46
            && bytes[bytes.startIndex + 10] == 0x49 && bytes[bytes.startIndex + 11] == 0x54
    }

    /// Decodes the whole file. Throws ``FITError/notFIT(file:reason:)`` when the first header is
    /// not FIT's; any later damage is kept in ``FITFile/damage`` with the messages before it.
    public static func decode(_ bytes: [UInt8], name: String) throws(FITError) -> FITFile {
        var file = FITFile(name: name, parts: [], damage: nil)
        var offset = 0
        while offset < bytes.count {
            var reader = PartReader(bytes: bytes, name: name, start: offset)
            do {
                let header = try reader.header(first: file.parts.isEmpty)
                let (end, crc) = try reader.records(header: header)
                offset = end
                file.parts.append(FITPart(offset: reader.start, header: header, messages: reader.messages, crcChecked: true, crc: crc))
            } catch {
                if case .notFIT = error, file.parts.isEmpty { throw error }
                if let header = reader.readHeader {
                    file.parts.append(FITPart(offset: reader.start, header: header, messages: reader.messages, crcChecked: false, crc: nil))
                }
                file.damage = error
                return file
            }
        }
        return file
    }

    /// A definition message: the layout of the data messages of one local type.
    private struct Definition {
        var global: UInt16
        var bigEndian: Bool
        var fields: [(number: UInt8, size: Int, type: FITBaseType)]
        var developerBytes: Int
        /// Bytes of one data message after its record header.
        var size: Int
    }

    /// Reads one file of a chain from `start`.
    private struct PartReader {
        let bytes: [UInt8]
        let name: String
        let start: Int
        var readHeader: FITHeader?
        var messages: [FITMessage] = []
        var definitions = [Definition?](repeating: nil, count: 16)
        var lastTimestamp: UInt32?

        init(bytes: [UInt8], name: String, start: Int) {
            self.bytes = bytes
            self.name = name
            self.start = start
        }

        mutating func header(first: Bool) throws(FITError) -> FITHeader {
            let available = bytes.count - start
            func refuse(_ reason: String) -> FITError {
                first ? .notFIT(file: name, reason: reason) : .badHeader(file: name, offset: start, reason: reason)
            }
            guard available >= 12 else {
                if !first {
                    throw .truncated(file: name, offset: bytes.count, what: "\(available) bytes follow the last file's CRC, too few for a FIT header")
                }
                throw refuse("it has \(available) bytes, fewer than a FIT header's 12")
            }
            let size = Int(bytes[start])
            guard FITDecoder.isFIT(prefix: bytes[start..<start + 12]) else {
                let signature = bytes[start + 8..<start + 12].map { (0x20..<0x7F).contains($0) ? String(UnicodeScalar($0)) : "." }.joined()
                throw refuse(size < 12 ? "its header size is \(size), not 12 or 14" : "bytes 8–11 are \"\(signature)\", not \".FIT\"")
            }
            guard available >= size else {
                throw .truncated(file: name, offset: bytes.count, what: "the \(size)-byte header at byte \(start) has only \(available) bytes")
            }
            var header = FITHeader(
                size: size, protocolVersion: bytes[start + 1], profileVersion: bytes.u16le(at: start + 2),
                dataSize: Int(bytes.u32le(at: start + 4)), crc: nil)
            if size >= 14 {
                let stored = bytes.u16le(at: start + 12)
                if stored != 0 {
                    header.crc = stored
                    let computed = CRC16.arc.checksum(bytes[start..<start + 12])
                    guard computed == stored else { throw .headerCRC(file: name, offset: start + 12, stored: stored, computed: computed) }
                }
            }
            readHeader = header
            return header
        }

        /// Reads the records and checks the file CRC; returns the offset after the CRC, and the CRC.
        mutating func records(header: FITHeader) throws(FITError) -> (end: Int, crc: UInt16) {
            let recordsStart = start + header.size
            let recordsEnd = recordsStart + header.dataSize
            let end = min(recordsEnd, bytes.count)
            var offset = recordsStart
            while offset < end {
                offset = try record(at: offset, end: end, recordsEnd: recordsEnd)
            }
            guard recordsEnd + 2 <= bytes.count else {
                let what =
                    recordsEnd > bytes.count
                    ? "the header at byte \(start) announces \(header.dataSize) bytes of records, ending at byte \(recordsEnd), and the file CRC after them"
                    : "the file CRC (2 bytes) after the records ending at byte \(recordsEnd) is missing"
                throw .truncated(file: name, offset: bytes.count, what: what)
            }
            let stored = bytes.u16le(at: recordsEnd)
            let computed = CRC16.arc.checksum(bytes[start..<recordsEnd])
            guard stored == computed else { throw .fileCRC(file: name, offset: recordsEnd, stored: stored, computed: computed) }
            return (recordsEnd + 2, stored)
        }

        /// Reads the record at `offset`; returns the offset after it.
        private mutating func record(at offset: Int, end: Int, recordsEnd: Int) throws(FITError) -> Int {
            let headerByte = bytes[offset]
            func need(_ count: Int, _ what: @autoclosure () -> String) throws(FITError) {
                guard offset + count > end else { return }
                if end < recordsEnd {
                    throw .truncated(file: name, offset: end, what: "\(what()) at byte \(offset) needs \(count) bytes; the message is left out")
                }
                throw .badRecord(
                    file: name, offset: offset, reason: "\(what()) needs \(count) bytes, past the end of the records at byte \(recordsEnd)")
            }
            if headerByte & 0x80 != 0 {
                let local = Int(headerByte >> 5 & 0x03)
                let low = UInt32(headerByte & 0x1F)
                guard let definition = definitions[local] else {
                    throw .badRecord(
                        file: name, offset: offset, reason: "a compressed-timestamp data message of local type \(local), which no definition precedes"
                    )
                }
                try need(1 + definition.size, "a data message of global number \(definition.global)")
                var time: UInt32?
                if let last = lastTimestamp {
                    time = last &+ ((low &- (last & 0x1F)) & 0x1F)
                    lastTimestamp = time
                }
                data(definition, at: offset, compressedTimestamp: time)
                return offset + 1 + definition.size
            }
            let local = Int(headerByte & 0x0F)
            if headerByte & 0x40 != 0 {
                try need(6, "a definition message")
                let bigEndian = bytes[offset + 2] == 1
                guard bytes[offset + 2] <= 1 else {
                    throw .badRecord(
                        file: name, offset: offset,
                        reason: "a definition message gives byte order \(bytes[offset + 2]), not 0 (little) or 1 (big endian)")
                }
                let global = bigEndian ? UInt16(bytes[offset + 3]) << 8 | UInt16(bytes[offset + 4]) : bytes.u16le(at: offset + 3)
                let count = Int(bytes[offset + 5])
                var length = 6 + 3 * count
                try need(length, "a definition message of \(count) fields")
                var fields: [(number: UInt8, size: Int, type: FITBaseType)] = []
                fields.reserveCapacity(count)
                var size = 0
                for index in 0..<count {
                    let at = offset + 6 + 3 * index
                    let fieldSize = Int(bytes[at + 1])
                    guard fieldSize > 0 else {
                        throw .badRecord(
                            file: name, offset: offset,
                            reason: "the definition of global message \(global) gives field \(bytes[at]) a size of 0 bytes")
                    }
                    fields.append((bytes[at], fieldSize, FITBaseType(definition: bytes[at + 2])))
                    size += fieldSize
                }
                var developerBytes = 0
                if headerByte & 0x20 != 0 {
                    try need(length + 1, "a definition message with developer fields")
                    let developerCount = Int(bytes[offset + length])
                    try need(length + 1 + 3 * developerCount, "a definition message of \(developerCount) developer fields")
                    for index in 0..<developerCount { developerBytes += Int(bytes[offset + length + 1 + 3 * index + 1]) }
                    length += 1 + 3 * developerCount
                }
                definitions[local] = Definition(
                    global: global, bigEndian: bigEndian, fields: fields, developerBytes: developerBytes, size: size + developerBytes)
                return offset + length
            }
            guard let definition = definitions[local] else {
                throw .badRecord(file: name, offset: offset, reason: "a data message of local type \(local), which no definition precedes")
            }
            try need(1 + definition.size, "a data message of global number \(definition.global)")
            data(definition, at: offset, compressedTimestamp: nil)
            return offset + 1 + definition.size
        }

        private mutating func data(_ definition: Definition, at offset: Int, compressedTimestamp: UInt32?) {
            var fields: [FITField] = []
            fields.reserveCapacity(definition.fields.count)
            var at = offset + 1
            for field in definition.fields {
                fields.append(
                    FITField(
                        number: field.number, baseType: field.type,
                        values: Self.values(bytes[at..<at + field.size], type: field.type, bigEndian: definition.bigEndian)))
                at += field.size
            }
            let message = FITMessage(
                global: definition.global, offset: offset, fields: fields, compressedTimestamp: compressedTimestamp,
                developerBytes: definition.developerBytes)
            if compressedTimestamp == nil, let time = message.integer(FITProfile.timestampField).flatMap(UInt32.init(exactly:)) {
                lastTimestamp = time
            }
            messages.append(message)
        }

        /// The values of one field's bytes; a size that is not a whole number of the base type's
        /// values is read as bytes.
        static func values(_ raw: ArraySlice<UInt8>, type: FITBaseType, bigEndian: Bool) -> [FITValue] {
            switch type {
            case .string:
                let text = raw.prefix { $0 != 0 }
                return [text.isEmpty ? .invalid : .text(String(decoding: text, as: UTF8.self))]
            case .byte:
                return [raw.allSatisfy { $0 == 0xFF } ? .invalid : .bytes(Array(raw))]
            default:
                break
            }
            let width = type.size
            guard raw.count % width == 0 else { return [raw.allSatisfy { $0 == 0xFF } ? .invalid : .bytes(Array(raw))] }
            var values: [FITValue] = []
            values.reserveCapacity(raw.count / width)
            var at = raw.startIndex
            while at < raw.endIndex {
                var bits: UInt64 = 0
                for index in 0..<width {
                    let byte = UInt64(raw[bigEndian ? at + index : at + width - 1 - index])
                    bits = bits << 8 | byte
                }
                values.append(value(bits, type: type))
                at += width
            }
            return values
        }

        /// One value's bits as `type` reads them, or `.invalid` for the type's invalid value.
        private static func value(_ bits: UInt64, type: FITBaseType) -> FITValue {
            let width = UInt64(type.size * 8)
            let all: UInt64 = width == 64 ? .max : (1 << width) - 1
            switch type {
            case .uint8z, .uint16z, .uint32z, .uint64z:
                return bits == 0 ? .invalid : .unsigned(bits)
            case .enumeration, .uint8, .uint16, .uint32, .uint64:
                return bits == all ? .invalid : .unsigned(bits)
            case .sint8, .sint16, .sint32, .sint64:
                guard bits != all >> 1 else { return .invalid }
                let shift = 64 - width
                return .signed(Int64(bitPattern: bits << shift) >> shift)
            case .float32:
                return bits == all ? .invalid : .float(Double(Float(bitPattern: UInt32(bits))))
            case .float64:
                return bits == all ? .invalid : .float(Double(bitPattern: bits))
            case .string, .byte:
                return .bytes([])
            }
        }
    }
}
