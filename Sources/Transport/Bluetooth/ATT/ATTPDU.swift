/// A handle and the UUID of the attribute there (Find Information Response entries).
public struct ATTHandleUUID: Sendable, Equatable {
    package var handle: UInt16
    package var uuid: BluetoothUUID

    package init(handle: UInt16, uuid: BluetoothUUID) {
        self.handle = handle
        self.uuid = uuid
    }
}

/// A found attribute and the end of its group (Find By Type Value Response entries).
public struct ATTHandleRange: Sendable, Equatable {
    package var start: UInt16
    package var end: UInt16

    package init(start: UInt16, end: UInt16) {
        self.start = start
        self.end = end
    }
}

/// A handle and its value (Read By Type Response entries).
public struct ATTHandleValue: Sendable, Equatable {
    package var handle: UInt16
    package var value: [UInt8]

    package init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}

/// A group's handle range and value (Read By Group Type Response entries: a service's range and
/// UUID in discovery).
public struct ATTGroupValue: Sendable, Equatable {
    package var start: UInt16
    package var end: UInt16
    package var value: [UInt8]

    package init(start: UInt16, end: UInt16, value: [UInt8]) {
        self.start = start
        self.end = end
        self.value = value
    }
}

/// One ATT PDU, decoded [BlueZ src/shared/att-types.h]. Multi-byte
/// fields are little-endian. PDUs glucobridge does not use are kept raw as `.other`.
public enum ATTPDU: Sendable, Equatable {
    case errorResponse(request: UInt8, handle: UInt16, error: ATTErrorCode)
    case exchangeMTURequest(clientMTU: UInt16)
    case exchangeMTUResponse(serverMTU: UInt16)
    case findInformationRequest(start: UInt16, end: UInt16)
    /// Entries all 16-bit (format 1) or all 128-bit (format 2).
    case findInformationResponse([ATTHandleUUID])
    case findByTypeValueRequest(start: UInt16, end: UInt16, type: UInt16, value: [UInt8])
    case findByTypeValueResponse([ATTHandleRange])
    case readByTypeRequest(start: UInt16, end: UInt16, type: BluetoothUUID)
    /// Entries of one length.
    case readByTypeResponse([ATTHandleValue])
    case readRequest(handle: UInt16)
    case readResponse(value: [UInt8])
    case readBlobRequest(handle: UInt16, offset: UInt16)
    case readBlobResponse(value: [UInt8])
    case readByGroupTypeRequest(start: UInt16, end: UInt16, type: BluetoothUUID)
    /// Entries of one length.
    case readByGroupTypeResponse([ATTGroupValue])
    case writeRequest(handle: UInt16, value: [UInt8])
    case writeResponse
    case writeCommand(handle: UInt16, value: [UInt8])
    case handleValueNotification(handle: UInt16, value: [UInt8])
    case handleValueIndication(handle: UInt16, value: [UInt8])
    case handleValueConfirmation
    /// Any other PDU (prepared writes, read multiple, signed writes, …): opcode and parameters.
    case other(opcode: UInt8, parameters: [UInt8])

    /// Decodes a whole PDU; a PDU shorter than its fields, or with entries that do not fit, is
    /// `BLEError.malformedPDU`.
    public init(bytes: [UInt8]) throws(BLEError) {
        guard let first = bytes.first else { throw .malformedPDU(bytes: bytes, problem: "an ATT PDU needs an opcode") }
        guard let opcode = ATTOpcode(rawValue: first) else {
            self = .other(opcode: first, parameters: Array(bytes.dropFirst()))
            return
        }
        let p = Array(bytes.dropFirst())
        func need(_ count: Int, exact: Bool = false) throws(BLEError) {
            if exact ? p.count != count : p.count < count {
                throw .malformedPDU(
                    bytes: bytes,
                    problem: "\(opcode) needs \(exact ? "" : "at least ")\(count) parameter bytes, found \(p.count)")
            }
        }
        func u16(_ at: Int) -> UInt16 { UInt16(p[at]) | UInt16(p[at + 1]) << 8 }
        func uuid(from at: Int) throws(BLEError) -> BluetoothUUID {
            guard let uuid = BluetoothUUID(littleEndian: p[at...]), p.count - at != 4 else {
                throw .malformedPDU(bytes: bytes, problem: "\(opcode): a UUID of \(p.count - at) bytes (expected 2 or 16)")
            }
            return uuid
        }
        /// Equal-length entries after a 1-byte length field.
        func entries(minimum: Int) throws(BLEError) -> [ArraySlice<UInt8>] {
            try need(1)
            let length = Int(p[0])
            let body = p.count - 1
            guard length >= minimum, body > 0, body % length == 0 else {
                throw .malformedPDU(
                    bytes: bytes, problem: "\(opcode): entries of \(length) bytes do not fill \(body) bytes (minimum \(minimum))")
            }
            return stride(from: 1, to: p.count, by: length).map { p[$0..<($0 + length)] }
        }

        switch opcode {
        case .errorResponse:
            try need(4, exact: true)
            self = .errorResponse(request: p[0], handle: u16(1), error: ATTErrorCode(rawValue: p[3]))
        case .exchangeMTURequest:
            try need(2, exact: true)
            self = .exchangeMTURequest(clientMTU: u16(0))
        case .exchangeMTUResponse:
            try need(2, exact: true)
            self = .exchangeMTUResponse(serverMTU: u16(0))
        case .findInformationRequest:
            try need(4, exact: true)
            self = .findInformationRequest(start: u16(0), end: u16(2))
        case .findInformationResponse:
            try need(1)
            let width: Int
            switch p[0] {
            case 1: width = 2
            case 2: width = 16
            default: throw .malformedPDU(bytes: bytes, problem: "\(opcode): unknown format \(p[0]) (expected 1 or 2)")
            }
            let body = p.count - 1
            guard body > 0, body % (2 + width) == 0 else {
                throw .malformedPDU(bytes: bytes, problem: "\(opcode): entries of \(2 + width) bytes do not fill \(body) bytes")
            }
            self = .findInformationResponse(
                stride(from: 1, to: p.count, by: 2 + width).map { at in
                    ATTHandleUUID(handle: u16(at), uuid: BluetoothUUID(littleEndian: p[(at + 2)..<(at + 2 + width)])!)
                })
        case .findByTypeValueRequest:
            try need(6)
            self = .findByTypeValueRequest(start: u16(0), end: u16(2), type: u16(4), value: Array(p[6...]))
        case .findByTypeValueResponse:
            guard !p.isEmpty, p.count % 4 == 0 else {
                throw .malformedPDU(bytes: bytes, problem: "\(opcode): \(p.count) bytes are not 4-byte entries")
            }
            self = .findByTypeValueResponse(stride(from: 0, to: p.count, by: 4).map { ATTHandleRange(start: u16($0), end: u16($0 + 2)) })
        case .readByTypeRequest:
            try need(6)
            self = .readByTypeRequest(start: u16(0), end: u16(2), type: try uuid(from: 4))
        case .readByTypeResponse:
            self = .readByTypeResponse(
                try entries(minimum: 2).map { entry in
                    ATTHandleValue(
                        handle: UInt16(entry[entry.startIndex]) | UInt16(entry[entry.startIndex + 1]) << 8, value: Array(entry.dropFirst(2)))
                })
        case .readRequest:
            try need(2, exact: true)
            self = .readRequest(handle: u16(0))
        case .readResponse:
            self = .readResponse(value: p)
        case .readBlobRequest:
            try need(4, exact: true)
            self = .readBlobRequest(handle: u16(0), offset: u16(2))
        case .readBlobResponse:
            self = .readBlobResponse(value: p)
        case .readByGroupTypeRequest:
            try need(6)
            self = .readByGroupTypeRequest(start: u16(0), end: u16(2), type: try uuid(from: 4))
        case .readByGroupTypeResponse:
            self = .readByGroupTypeResponse(
                try entries(minimum: 4).map { entry in
                    let s = entry.startIndex
                    return ATTGroupValue(
                        start: UInt16(entry[s]) | UInt16(entry[s + 1]) << 8, end: UInt16(entry[s + 2]) | UInt16(entry[s + 3]) << 8,
                        value: Array(entry.dropFirst(4)))
                })
        case .writeRequest:
            try need(2)
            self = .writeRequest(handle: u16(0), value: Array(p[2...]))
        case .writeResponse:
            try need(0, exact: true)
            self = .writeResponse
        case .writeCommand:
            try need(2)
            self = .writeCommand(handle: u16(0), value: Array(p[2...]))
        case .handleValueNotification:
            try need(2)
            self = .handleValueNotification(handle: u16(0), value: Array(p[2...]))
        case .handleValueIndication:
            try need(2)
            self = .handleValueIndication(handle: u16(0), value: Array(p[2...]))
        case .handleValueConfirmation:
            try need(0, exact: true)
            self = .handleValueConfirmation
        default:
            self = .other(opcode: first, parameters: p)
        }
    }

    /// The opcode byte.
    package var opcode: UInt8 {
        switch self {
        case .errorResponse: ATTOpcode.errorResponse.rawValue
        case .exchangeMTURequest: ATTOpcode.exchangeMTURequest.rawValue
        case .exchangeMTUResponse: ATTOpcode.exchangeMTUResponse.rawValue
        case .findInformationRequest: ATTOpcode.findInformationRequest.rawValue
        case .findInformationResponse: ATTOpcode.findInformationResponse.rawValue
        case .findByTypeValueRequest: ATTOpcode.findByTypeValueRequest.rawValue
        case .findByTypeValueResponse: ATTOpcode.findByTypeValueResponse.rawValue
        case .readByTypeRequest: ATTOpcode.readByTypeRequest.rawValue
        case .readByTypeResponse: ATTOpcode.readByTypeResponse.rawValue
        case .readRequest: ATTOpcode.readRequest.rawValue
        case .readResponse: ATTOpcode.readResponse.rawValue
        case .readBlobRequest: ATTOpcode.readBlobRequest.rawValue
        case .readBlobResponse: ATTOpcode.readBlobResponse.rawValue
        case .readByGroupTypeRequest: ATTOpcode.readByGroupTypeRequest.rawValue
        case .readByGroupTypeResponse: ATTOpcode.readByGroupTypeResponse.rawValue
        case .writeRequest: ATTOpcode.writeRequest.rawValue
        case .writeResponse: ATTOpcode.writeResponse.rawValue
        case .writeCommand: ATTOpcode.writeCommand.rawValue
        case .handleValueNotification: ATTOpcode.handleValueNotification.rawValue
        case .handleValueIndication: ATTOpcode.handleValueIndication.rawValue
        case .handleValueConfirmation: ATTOpcode.handleValueConfirmation.rawValue
        case .other(let opcode, _): opcode
        }
    }

    /// The encoded PDU.
    package var bytes: [UInt8] {
        var out: [UInt8] = [opcode]
        switch self {
        case .errorResponse(let request, let handle, let error):
            out.append(request)
            out.appendLE16(handle)
            out.append(error.rawValue)
        case .exchangeMTURequest(let mtu), .exchangeMTUResponse(let mtu):
            out.appendLE16(mtu)
        case .findInformationRequest(let start, let end):
            out.appendLE16(start)
            out.appendLE16(end)
        case .findInformationResponse(let entries):
            out.append(entries.first.map { $0.uuid.short == nil ? 2 : 1 } ?? 1)
            for entry in entries {
                out.appendLE16(entry.handle)
                out += entry.uuid.littleEndianBytes
            }
        case .findByTypeValueRequest(let start, let end, let type, let value):
            out.appendLE16(start)
            out.appendLE16(end)
            out.appendLE16(type)
            out += value
        case .findByTypeValueResponse(let entries):
            for entry in entries {
                out.appendLE16(entry.start)
                out.appendLE16(entry.end)
            }
        case .readByTypeRequest(let start, let end, let type), .readByGroupTypeRequest(let start, let end, let type):
            out.appendLE16(start)
            out.appendLE16(end)
            out += type.littleEndianBytes
        case .readByTypeResponse(let entries):
            out.append(UInt8(truncatingIfNeeded: 2 + (entries.first?.value.count ?? 0)))
            for entry in entries {
                out.appendLE16(entry.handle)
                out += entry.value
            }
        case .readRequest(let handle):
            out.appendLE16(handle)
        case .readResponse(let value), .readBlobResponse(let value):
            out += value
        case .readBlobRequest(let handle, let offset):
            out.appendLE16(handle)
            out.appendLE16(offset)
        case .readByGroupTypeResponse(let entries):
            out.append(UInt8(truncatingIfNeeded: 4 + (entries.first?.value.count ?? 0)))
            for entry in entries {
                out.appendLE16(entry.start)
                out.appendLE16(entry.end)
                out += entry.value
            }
        case .writeRequest(let handle, let value), .writeCommand(let handle, let value), .handleValueNotification(let handle, let value),
            .handleValueIndication(let handle, let value):
            out.appendLE16(handle)
            out += value
        case .writeResponse, .handleValueConfirmation:
            break
        case .other(_, let parameters):
            out += parameters
        }
        return out
    }
}

extension Array where Element == UInt8 {
    mutating func appendLE16(_ value: UInt16) {
        append(UInt8(value & 0xFF))
        append(UInt8(value >> 8))
    }
}
