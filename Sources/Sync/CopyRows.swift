import PostgresNIO
import Store

/// A device by the names the store and the server share.
struct SourceKey: Hashable, Sendable {
    var family: String
    var serial: String
}

extension SyncRows {
    /// The distinct devices of the rows (their `family` and `serial` columns), in order of first use.
    var sourceKeys: [SourceKey] {
        guard let family = columns.firstIndex(of: "family"), let serial = columns.firstIndex(of: "serial") else { return [] }
        var seen = Set<SourceKey>()
        var keys: [SourceKey] = []
        var last: SourceKey?
        for row in rows {
            guard case .text(let f) = row[family], case .text(let s) = row[serial] else { continue }
            // Rows of one device come in runs: only a change of device is looked up.
            if let last, last.family == f, last.serial == s { continue }
            let key = SourceKey(family: f, serial: s)
            last = key
            if seen.insert(key).inserted { keys.append(key) }
        }
        return keys
    }

    /// The rows as the lines of a `COPY … FROM STDIN` in text format (PostgreSQL documentation,
    /// "COPY", File Formats: Text Format), in the order of `table.copyColumns`: the patient, the
    /// store's uid, the device's central id, then each column read from its local field.
    func copyText(
        for table: CentralTable, patient: String, storeID: String, sourceIDs: [SourceKey: Int64]
    ) throws(SyncError) -> ByteBuffer {
        var prefix = ByteBuffer()
        Self.appendText(patient, to: &prefix)
        prefix.writeInteger(UInt8(ascii: "\t"))
        if table.byStore {
            Self.appendText(storeID, to: &prefix)
            prefix.writeInteger(UInt8(ascii: "\t"))
        }
        var fields: [(index: Int, flag: Bool)] = []
        for column in table.columns {
            guard let index = columns.firstIndex(of: column.field) else {
                throw .store(.database("the local rows for \(table.name) have no column \(column.field)"))
            }
            fields.append((index, column.isFlag))
        }
        let family = columns.firstIndex(of: "family")
        let serial = columns.firstIndex(of: "serial")
        if table.bySource, family == nil || serial == nil {
            throw .store(.database("the local rows for \(table.name) name no device (family, serial)"))
        }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(rows.count * (prefix.readableBytes + fields.count * 10))
        var lastSource: (key: SourceKey, id: Int64)?
        for row in rows {
            buffer.writeImmutableBuffer(prefix)
            if table.bySource, let family, let serial {
                guard case .text(let f) = row[family], case .text(let s) = row[serial] else {
                    throw .store(.database("a row for \(table.name) names no device"))
                }
                let id: Int64
                if let lastSource, lastSource.key.family == f, lastSource.key.serial == s {
                    id = lastSource.id
                } else {
                    let key = SourceKey(family: f, serial: s)
                    guard let found = sourceIDs[key] else {
                        throw .server("the device \(f) \(s) has no row in the server's source table")
                    }
                    id = found
                    lastSource = (key, found)
                }
                buffer.writeString(String(id))
                buffer.writeInteger(UInt8(ascii: "\t"))
            }
            for (position, field) in fields.enumerated() {
                if position > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
                switch row[field.index] {
                case .null: buffer.writeStaticString("\\N")
                case .integer(let number):
                    if field.flag {
                        buffer.writeInteger(number != 0 ? UInt8(ascii: "t") : UInt8(ascii: "f"))
                    } else {
                        buffer.writeString(String(number))
                    }
                // The store's CHECKs keep reals finite; Swift's shortest round-trip form is what
                // float8's input reads back to the same value.
                case .real(let number): buffer.writeString(number.description)
                case .text(let text): Self.appendText(text, to: &buffer)
                }
            }
            buffer.writeInteger(UInt8(ascii: "\n"))
        }
        return buffer
    }

    /// `text` with the four bytes the text format gives a meaning escaped: backslash, tab,
    /// newline and carriage return.
    static func appendText(_ text: String, to buffer: inout ByteBuffer) {
        let plain = text.utf8.allSatisfy { $0 != 0x5C && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        guard !plain else {
            buffer.writeString(text)
            return
        }
        for byte in text.utf8 {
            switch byte {
            case 0x5C: buffer.writeStaticString("\\\\")
            case 0x09: buffer.writeStaticString("\\t")
            case 0x0A: buffer.writeStaticString("\\n")
            case 0x0D: buffer.writeStaticString("\\r")
            default: buffer.writeInteger(byte)
            }
        }
    }
}
